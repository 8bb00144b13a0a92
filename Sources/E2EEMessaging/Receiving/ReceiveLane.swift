@_spi(StoreInternals) import E2EEKeyStore

/// One serial lane: the messages of one sender device, decrypted strictly one at a time in
/// the order given (docs/spec/sync.md 3), their writes committed in chunks, each all or nothing (docs/spec/sync.md
/// 4; chunks of several lanes may share a transaction, ``ChunkCommitter``), in order, while the
/// lane decrypts on; events published after each commit. When a message installs a session or a
/// sender key, the pending rows waiting for it are re-driven at once, in `(created_at, id)`
/// order, in this same lane (the chunk is committed first when it holds one of them) — those of
/// its own device only: rows of another device (a DM request settled by our own device's message
/// releases the other user's messages) are handed back (``Run/handedOver``), to be re-driven in
/// their own device's lane, under that device's lock.
struct ReceiveLane: Sendable {
    /// What one run did.
    struct Run: Sendable {
        /// One outcome per message handled (re-driven rows of this device included).
        var outcomes: [ReceiveOutcome] = []
        /// Pending rows of other devices that a key installed here released, not handled here.
        var handedOver: [IncomingMessage] = []
    }

    let processor: MessageProcessor
    let events: EventBroadcaster
    /// Writes per transaction.
    let chunkSize: Int
    /// Told the one-time prekeys each commit consumed (for republishing the remaining ones).
    let oneTimePrekeysConsumed: (@Sendable ([UInt32]) -> Void)?
    /// Told the link messages each commit stored (``LinkInbox``).
    let linkInbox: LinkInbox?
    /// This run's handle on the pipeline's chunk committer (which merges the chunks that wait,
    /// of any run).
    let committer: ChunkCommitter.Run
    /// Sender-key states read with the batch's plan (see ``ReceivePlan/senderKeys``).
    var plannedKeys: [SenderKeyAddress: ReceiverSenderKey?] = [:]

    /// Processes `inputs` in order; returns one outcome per message handled (re-driven rows included).
    ///
    /// Chunks are handed to the chunk committer without waiting for it: the lane decrypts the
    /// next chunk while the store writes the last one, and settles the commits (outcomes,
    /// events) in order — those already done after each hand-off, all of them before reading
    /// rows that wait for a key it just installed, and at the end.
    /// - Throws: store errors (the chunk being committed is then not stored at all, nor any
    ///   later one), or `CancellationError` when the calling task is cancelled. Either way, the
    ///   chunks already handed over are finished before it returns.
    func run(_ inputs: [IncomingMessage], queued: Bool = false) async throws -> Run {
        let lane = LaneState(store: processor.store, plannedKeys: plannedKeys)
        let device = inputs.first?.laneKey
        var handedOver: [IncomingMessage] = []
        var queue = inputs
        var position = 0
        var outcomes: [ReceiveOutcome] = []
        var buffer: [(index: Int, step: ProcessingStep)] = []
        var commits = LaneCommits()
        if queued { committer.queuedLaneStarted() } else { committer.laneStarted() }
        defer { committer.laneEnded() }
        do {
            while position < queue.count {
                // A cancelled caller stops between messages; committed chunks stay, the rest is redone next time.
                try Task.checkCancellation()
                guard !lane.handled.contains(queue[position].id) else {
                    position += 1
                    continue
                }
                try await verifyAhead(&queue, at: position, lane: lane)
                let message = queue[position]
                position += 1
                let step: ProcessingStep
                if message.hasEarlierCopy, let first = lane.acceptedByHash[message.digest] {
                    step = ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .duplicate(of: first)), write: message.duplicateWrite(of: first),
                                          isNewRow: true, isTimelineRow: false, channelID: message.channelID)
                } else {
                    step = try await processor.process(message, lane: lane)
                    switch step.outcome.result {
                    case .undecryptable, .refused: break
                    default: if lane.acceptedByHash[message.digest] == nil { lane.acceptedByHash[message.digest] = message.id }
                    }
                }
                if case .pending = step.outcome.result {} else { lane.handled.insert(message.id) }
                outcomes.append(step.outcome)
                let unlocks = step.unlocks
                let settlesRequest = step.write?.fixesParticipants != nil
                // The step's last use: moved into the buffer, not copied.
                if step.write != nil { buffer.append((outcomes.count - 1, step)) }
                if !unlocks.isEmpty {
                    // Rows of this lane waiting for the key must be stored before the queue is
                    // read; when none is, the lane goes on (most new keys have nobody waiting).
                    // A DM request settled here is stored first too: the released rows (other
                    // devices', run next in their own lanes) read the participants from the store.
                    if settlesRequest || buffer.contains(where: { Self.waits($0.step, forAnyOf: unlocks) }) {
                        handOff(&buffer, to: &commits, lane: lane)
                    }
                    if settlesRequest || commits.holdsRow(waitingForAnyOf: unlocks) { try await settle(&commits, into: &outcomes) }
                    let waiting = try await processor.store.pendingReceives(waitingFor: unlocks)
                        .filter { !lane.handled.contains($0.pending.messageID) }.map(IncomingMessage.init(pending:))
                    queue.insert(contentsOf: waiting.filter { $0.laneKey == device }, at: position)
                    for row in waiting where row.laneKey != device {
                        lane.handled.insert(row.id)
                        handedOver.append(row)
                    }
                }
                if buffer.count >= min(chunkSize, Self.handOffSize) {
                    handOff(&buffer, to: &commits, lane: lane)
                    // Chunks already committed publish their events now, not at the end of a long lane.
                    try settleDone(&commits, into: &outcomes)
                }
            }
            committer.laneWaits()
            defer { committer.laneStopsWaiting() }
            await handOffLast(&buffer, to: &commits, lane: lane)
            try await settle(&commits, into: &outcomes, waiting: true)
        } catch {
            committer.urge()
            await commits.finish()
            throw error
        }
        return Run(outcomes: outcomes, handedOver: handedOver)
    }

    /// Decrypted messages a lane hands to the chunk committer at a time (at most `chunkSize`):
    /// small enough that decryption and writing overlap (and the first messages of a long
    /// catch-up show within tens of milliseconds), large enough that a transaction dirties each
    /// random-key index page once for several rows (measured: 256 instead of 64 cut the system
    /// time of the receive benchmark by ~15 % and its CPU per row by ~8 %; 512 was no better).
    static let handOffSize = 256

    /// Whether `step` queued its message to wait for one of `keys`.
    static func waits(_ step: ProcessingStep, forAnyOf keys: [String]) -> Bool {
        guard case .pending(let key) = step.outcome.result else { return false }
        return keys.contains(key)
    }

    /// Hands the buffered writes, with the lane's key states as they are now, to the chunk
    /// committer without waiting for it.
    private func handOff(_ buffer: inout [(index: Int, step: ProcessingStep)], to commits: inout LaneCommits, lane: LaneState) {
        guard !buffer.isEmpty else { return }
        commits.start(entries: buffer, writes: chunkWrites(buffer, lane: lane), committer: committer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// ``handOff(_:to:lane:)`` of the lane's last chunk, which it settles at once.
    private func handOffLast(_ buffer: inout [(index: Int, step: ProcessingStep)], to commits: inout LaneCommits, lane: LaneState) async {
        guard !buffer.isEmpty else { return }
        await commits.startLast(entries: buffer, writes: chunkWrites(buffer, lane: lane), committer: committer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// The buffered steps' writes, with the lane's final session records and sender-key states
    /// serialised onto the last write of the chunk that touched each (earlier states are never
    /// stored: the chunk commits as a whole). Made in one array that nothing else holds, so the
    /// committer seals it in place (``ChunkCommitter/Run/submit(_:)``).
    private func chunkWrites(_ buffer: [(index: Int, step: ProcessingStep)], lane: LaneState) -> [ReceiveWrite] {
        // Every buffered step has a write (`run` buffers only those), so positions match.
        var writes = buffer.compactMap(\.step.write)
        var lastKey: [SenderKeyAddress: Int] = [:]
        var lastSession: [String: (index: Int, userID: UserID, deviceID: DeviceID)] = [:]
        for index in buffer.indices {
            if let address = buffer[index].step.senderKeyAddress { lastKey[address] = index }
            if let owner = buffer[index].step.sessionOwner {
                lastSession["\(owner.userID)/\(owner.deviceID)"] = (index, owner.userID, owner.deviceID)
            }
        }
        for (address, index) in lastKey {
            guard let key = lane.cachedSenderKey(address) else { continue }
            var record = key.record
            record.state = key.state.serialized()
            writes[index].senderKey = record
        }
        for entry in lastSession.values {
            writes[entry.index].session = lane.sessionWrite(userID: entry.userID, deviceID: entry.deviceID)
        }
        return writes
    }

    /// Waits for every chunk's commit, in order, applying each (`waiting`: the caller already told
    /// the committer the lane waits). While the lane waits, its chunks commit as soon as no other
    /// lane still works, or the window's bounds say so.
    private func settle(_ commits: inout LaneCommits, into outcomes: inout [ReceiveOutcome], waiting: Bool = false) async throws {
        guard !commits.isEmpty else { return }
        if !waiting { committer.laneWaits() }
        defer { if !waiting { committer.laneStopsWaiting() } }
        while let (chunk, results) = try await commits.next() { apply(chunk, results, to: &outcomes) }
    }

    /// ``settle(_:into:)`` of the chunks whose commits are already done, without waiting.
    private func settleDone(_ commits: inout LaneCommits, into outcomes: inout [ReceiveOutcome]) throws {
        while let (chunk, results) = try commits.nextDone() { apply(chunk, results, to: &outcomes) }
    }

    private func apply(_ chunk: LaneCommits.Chunk, _ results: [ReceiveWriteResult], to outcomes: inout [ReceiveOutcome]) {
        let consumed = chunk.entries.compactMap { entry -> UInt32? in
            if case .decrypted(let commit)? = entry.step.write?.action { return commit.consumedOneTimePrekeyID }
            return nil
        }
        if !consumed.isEmpty { oneTimePrekeysConsumed?(consumed) }
        var committed: [AccountEvent] = []
        var opened: [OpenedLinkMessage] = []
        for (entry, result) in zip(chunk.entries, results) {
            if let link = entry.step.linkMessage, result != .unchanged { opened.append(link) }
            if case .duplicateOfPayload(let first) = result {
                outcomes[entry.index] = ReceiveOutcome(messageID: entry.step.outcome.messageID, result: .duplicate(of: first))
            }
            committed += ReceiveEvents.events(for: entry.step, result: result)
        }
        // One commit, one batch for timeline observers (``TimelineUpdates``).
        events.publish(committed: committed)
        linkInbox?.deliver(opened)
    }
}
