import E2EEKeyStore

/// One serial lane: the messages of one sender device, decrypted strictly one at a time in
/// the order given (SYNC.md 3), their writes committed in chunks of one transaction each
/// (SYNC.md 4), events published after each commit. When a commit installs a session or a
/// sender key, the pending rows waiting for it are re-driven at once, in `(created_at, id)`
/// order, in this same lane.
struct ReceiveLane: Sendable {
    let processor: MessageProcessor
    let events: EventBroadcaster
    /// Writes per transaction.
    let chunkSize: Int

    /// Processes `inputs` in order; returns one outcome per message handled (re-driven rows included).
    /// - Throws: store errors; the chunk being committed is then not stored at all.
    func run(_ inputs: [IncomingMessage]) async throws -> [ReceiveOutcome] {
        let lane = LaneState(store: processor.store)
        var queue = inputs
        var position = 0
        var outcomes: [ReceiveOutcome] = []
        var buffer: [(index: Int, step: ProcessingStep)] = []
        while position < queue.count {
            let message = queue[position]
            position += 1
            guard !lane.handled.contains(message.id) else { continue }
            let step = try await processor.process(message, lane: lane)
            if case .pending = step.outcome.result {} else { lane.handled.insert(message.id) }
            outcomes.append(step.outcome)
            if step.write != nil { buffer.append((outcomes.count - 1, step)) }
            guard !step.unlocks.isEmpty || buffer.count >= chunkSize else { continue }
            try await flush(&buffer, into: &outcomes)
            if !step.unlocks.isEmpty {
                let waiting = try await processor.store.pendingReceives(waitingFor: step.unlocks)
                    .filter { !lane.handled.contains($0.pending.messageID) }
                queue.insert(contentsOf: waiting.map(IncomingMessage.init(pending:)), at: position)
            }
        }
        try await flush(&buffer, into: &outcomes)
        return outcomes
    }

    private func flush(_ buffer: inout [(index: Int, step: ProcessingStep)], into outcomes: inout [ReceiveOutcome]) async throws {
        guard !buffer.isEmpty else { return }
        let results = try await processor.store.storeReceiveBatch(buffer.compactMap(\.step.write))
        for (entry, result) in zip(buffer, results) {
            if case .duplicateOfPayload(let first) = result {
                outcomes[entry.index] = ReceiveOutcome(messageID: entry.step.outcome.messageID, result: .duplicate(of: first))
            }
            for event in ReceiveEvents.events(for: entry.step, result: result) { events.publish(event) }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
