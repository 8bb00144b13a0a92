import E2EECrypto
import Foundation
@_spi(StoreInternals) import E2EEKeyStore

/// The receive pipeline of one account (docs/spec/sync.md guarantees 1–4 and 8, docs/spec/protocol.md §2–§6):
/// posted messages from the socket or REST pages go in, exactly one outcome per message comes
/// out, the store holds the result, and the app hears of it on the ``EventBroadcaster``.
///
/// - Dedupe is persisted: the timeline table is the set (server id, envelope hash per channel,
///   (sender user, payload id)); a restart loses nothing and shows nothing twice.
/// - A batch is sorted by `(created_at, id)`; decryption is strictly serial per sender device
///   (a pairwise session is shared by every channel of the device, so the lane is the device,
///   which is finer than required for groups) and parallel across devices.
/// - Each lane commits in chunks, each all or nothing (chunks of lanes that finish while
///   another commit runs share the next transaction); a store failure stores nothing of the
///   chunk and is thrown (calling again with the same messages resumes: committed ones are
///   duplicates, the rest are still decryptable).
/// - Work that needs no protocol state is done ahead and in parallel: envelopes are decoded
///   and this device's pairwise entries parsed for the whole batch before the lanes run
///   (`ContentPreparation`), and a lane verifies the signatures of all its messages under a
///   sender key as soon as the key is there.
/// - Messages whose key is not here wait in the pending queue and are re-driven when the key
///   arrives, or by ``redrivePending()``.
///
/// What may run at the same time — batches of different channels, lanes of different devices,
/// commits merged — is the ``ReceiveScheduler``'s, whose doc comment lists the races it handles;
/// this type only says what a batch, an edit and a re-drive do.
@_spi(Benchmarks) public final class ReceivePipeline: Sendable {
    private let processor: MessageProcessor
    private let events: EventBroadcaster
    private let chunkSize: Int
    private let oneTimePrekeysConsumed: (@Sendable ([UInt32]) -> Void)?
    /// The system clock of text 1.3 in unix seconds (docs/spec/protocol.md §10.19).
    private let userKeySeconds: @Sendable () -> Int64
    private let scheduler: ReceiveScheduler
    /// Where the link messages this pipeline opens go once committed (docs/spec/protocol.md §10.10).
    let linkInbox = LinkInbox()

    /// A pipeline over `store` for `device`.
    /// - Parameters:
    ///   - store: the account's key store, where every decryption commits.
    ///   - device: this device's identity and ids.
    ///   - listedIdentities: the identities the server lists, for prekey messages from devices not pinned yet.
    ///   - events: where timeline and identity events go, after each commit.
    ///   - chunkSize: decrypted messages per transaction in a lane (at least 1).
    ///   - clock: the current time (prekey grace window, sender-key retention, record times).
    ///   - random: the ratchet's randomness (new ratchet key pairs when a peer's ratchet turns).
    ///   - oneTimePrekeysConsumed: told, after each commit, the one-time prekey ids prekey
    ///     messages consumed (the account republishes its remaining list, docs/spec/protocol.md §2).
    ///   - locks: the account's protocol-state locks shared with the sending side: a lane holds
    ///     its device's session lock while it runs, so a send never advances the same session
    ///     from a state the lane is also advancing (a table of its own when nil: lanes of
    ///     overlapping batches still need it).
    ///   - listedIdentityLimit: how long one ask for listed identities may take (the lane holds
    ///     its device's lock meanwhile); past it the message waits in the pending queue.
    ///   - userKeySeconds: the system clock of text 1.3 in unix seconds (the bounds of messages
    ///     waiting for a device to be linked, docs/spec/protocol.md §10.8, §10.19).
    ///   - commitWindow: how many received rows may share a transaction and how long they may
    ///     wait for others (``CommitWindow``).
    ///   - commitWindowWaits: told each time a chunk is handed in to wait for its transaction
    ///     after an earlier one committed (a test's crash point).
    public init(store: KeyStore, device: LocalDevice, listedIdentities: any ListedIdentityProviding,
                events: EventBroadcaster, chunkSize: Int = 500, clock: @escaping @Sendable () -> StoreTime = { StoreTime.now() },
                random: any RandomSource = SystemRandom(), oneTimePrekeysConsumed: (@Sendable ([UInt32]) -> Void)? = nil,
                locks: KeyedAsyncLock? = nil, listedIdentityLimit: Duration = .seconds(5),
                userKeySeconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
                commitWindow: CommitWindow = .standard, commitWindowWaits: (@Sendable () -> Void)? = nil) {
        self.userKeySeconds = userKeySeconds
        self.scheduler = ReceiveScheduler(locks: locks ?? KeyedAsyncLock(), store: store, window: commitWindow, windowWaits: commitWindowWaits)
        self.oneTimePrekeysConsumed = oneTimePrekeysConsumed
        let limited = TimeLimitedListedIdentities(base: listedIdentities, limit: listedIdentityLimit)
        self.processor = MessageProcessor(store: store, device: device, listedIdentities: limited, clock: clock, random: random)
        self.events = events
        self.chunkSize = max(1, chunkSize)
    }

    /// Ingests posted messages of `channel` (a socket event, a REST page, or both merged):
    /// one outcome per message (and per pending row re-driven because of it). Messages of
    /// another channel are refused without being stored. `ownEchoes` are the ids among them the
    /// outbox recognised as this device's own messages (asked once, before the batch, by the
    /// account's one way in): a new one is `own`; any other message claiming this device is refused.
    /// - Throws: store errors, or `CancellationError`; never for bad input.
    public func ingest(_ messages: [ServerMessage], channel: ReceivingChannel, ownEchoes: Set<MessageID> = []) async throws -> [ReceiveOutcome] {
        try await scheduler.admitted(.batch(channelID: channel.id, messageIDs: Set(messages.map(\.id)))) {
            try await ingestAdmitted(messages, channel: channel, ownEchoes: ownEchoes)
        }
    }

    private func ingestAdmitted(_ messages: [ServerMessage], channel: ReceivingChannel, ownEchoes: Set<MessageID>) async throws -> [ReceiveOutcome] {
        let clock = scheduler.clock
        clock.countBatch()
        let plannedUnder = scheduler.generationSnapshot()
        var phaseStarted = ContinuousClock.now
        var plan = try await ReceivePlan.make(messages, channel: channel, ownEchoes: ownEchoes, store: processor.store)
        phaseStarted = clock.lap(since: phaseStarted, phase: .plan)
        for event in plan.refusals { events.publish(event) }
        var outcomes = plan.outcomes
        // The lanes move out of the plan, so that preparing them in place copies no message.
        var lanes = Array(plan.lanes.values)
        plan.lanes = [:]
        await ContentPreparation.prepare(&lanes, device: processor.deviceUUID)
        phaseStarted = clock.lap(since: phaseStarted, phase: .prepare)
        outcomes += try await runLanes(lanes, plannedKeys: plan.senderKeys, plannedUnder: plannedUnder)
        _ = clock.lap(since: phaseStarted, phase: .lanes)
        if !plan.duplicateWrites.isEmpty { _ = try await processor.store.storeReceiveBatch(plan.duplicateWrites) }
        for copy in plan.edits {
            let stored = try await processor.store.receivedMessages(ids: [copy.id.rawValue])[copy.id.rawValue]
            outcomes.append(try await applyEdit(of: stored, messageID: copy.id, channel: channel, content: copy.content,
                                                editedAt: copy.editedAt, protocolVersion: copy.protocolVersion ?? 1))
        }
        return outcomes
    }

    /// Applies a `message.edit` event of `channel`: accepted only from the original sender
    /// (§5) with `edit_of` naming the message (§6); a refused edit is recorded and the message
    /// stays. An edit of a message not seen yet is ignored (the REST catch-up brings it edited).
    /// - Throws: store errors.
    public func ingestEdit(_ edit: MessageEdit, channel: ReceivingChannel) async throws -> ReceiveOutcome {
        try await scheduler.admitted(.exclusive) { try await ingestEditAdmitted(edit, channel: channel) }
    }

    private func ingestEditAdmitted(_ edit: MessageEdit, channel: ReceivingChannel) async throws -> ReceiveOutcome {
        guard edit.channelID == channel.id else { return ReceiveOutcome(messageID: edit.id, result: .refused(.wrongChannel)) }
        let stored = try await processor.store.receivedMessages(ids: [edit.id.rawValue])[edit.id.rawValue]
        let version = stored?.message.state == .unencrypted ? 1 : 2
        return try await applyEdit(of: stored, messageID: edit.id, channel: channel, content: edit.content, editedAt: edit.editedAt,
                                   protocolVersion: version)
    }

    /// Where this pipeline's batches spent their time so far, per phase (diagnostics; the receive
    /// benchmark reports them).
    public func phaseTimes() -> ReceivePhaseTimes { scheduler.clock.snapshot }

    /// Retries every pending message (after a reconnect, or when listed identities may be
    /// reachable again), per sender device in `(created_at, id)` order, a page of the queue at
    /// a time.
    /// - Throws: store errors.
    public func redrivePending() async throws -> [ReceiveOutcome] {
        try await scheduler.admitted(.exclusive) { try await redriveAdmitted() }
    }

    private func redriveAdmitted() async throws -> [ReceiveOutcome] {
        try await DepartureSettlement(store: processor.store, events: events).settle()  // never retried
        try await UnlinkedWaitSettlement(store: processor.store, events: events).settle(now: userKeySeconds())
        var outcomes: [ReceiveOutcome] = []
        var cursor: TimelineCursor?
        while true {
            let rows = try await processor.store.pendingReceives(after: cursor, limit: Self.redrivePageSize)
            guard let last = rows.last else { break }
            cursor = TimelineCursor(createdAt: last.createdAt, messageID: last.pending.messageID)
            var lanes: [String: [IncomingMessage]] = [:]
            for row in rows {
                let message = IncomingMessage(pending: row)
                lanes[message.laneKey, default: []].append(message)
            }
            outcomes += try await runLanes(Array(lanes.values))
            if rows.count < Self.redrivePageSize { break }
        }
        return outcomes
    }

    /// Pending rows re-driven per page (queued envelopes can be large).
    static let redrivePageSize = 1_000

    /// Runs the lanes through the scheduler, each starting from `plannedKeys` (read when the
    /// batch was planned, under the lane counts `plannedUnder`) while they still hold.
    private func runLanes(_ lanes: [[IncomingMessage]], plannedKeys: [SenderKeyAddress: ReceiverSenderKey?] = [:],
                          plannedUnder: [String: UInt64] = [:]) async throws -> [ReceiveOutcome] {
        let run = scheduler.startCommitRun()
        defer { run.end() }
        let lane = ReceiveLane(processor: processor, events: events, chunkSize: chunkSize, oneTimePrekeysConsumed: oneTimePrekeysConsumed,
                               linkInbox: linkInbox, committer: run, plannedKeys: plannedKeys)
        return try await scheduler.runLanes(lanes, with: lane, plannedUnder: plannedUnder)
    }

    private func applyEdit(of stored: ReceivedMessage?, messageID: MessageID, channel: ReceivingChannel, content: String,
                           editedAt: ServerTimestamp?, protocolVersion: Int) async throws -> ReceiveOutcome {
        guard let stored, stored.facts.kind == .message else { return ReceiveOutcome(messageID: messageID, result: .ignored) }
        guard stored.message.channelID == channel.id.rawValue else { return ReceiveOutcome(messageID: messageID, result: .refused(.wrongChannel)) }
        guard SHA256.hash(utf8: content) != stored.message.contentHash else {
            return ReceiveOutcome(messageID: messageID, result: .duplicate(of: nil))
        }
        let time = editedAt.map { StoreTime(microseconds: $0.microseconds) }
        switch stored.message.state {
        case .deleted:
            return ReceiveOutcome(messageID: messageID, result: .ignored)
        case .undecryptable:
            let input = RefusedInput(channelID: channel.id.rawValue, messageID: messageID.rawValue, kind: .edit, reason: UndecryptableReason.originalNotReadable.rawValue,
                                     contentHash: SHA256.hash(utf8: content), seenAt: processor.clock())
            try await processor.store.recordRefusedInput(input)
            events.publish(.inputRefused(reason: "edit refused: \(UndecryptableReason.originalNotReadable.rawValue)"))
            return ReceiveOutcome(messageID: messageID, result: .editRefused(.originalNotReadable))
        case .pendingKey, .decrypted, .unencrypted:
            let message = IncomingMessage(editing: stored, content: content, editedAt: time, channel: channel, protocolVersion: protocolVersion)
            let outcomes = try await runLanes([[message]])
            return outcomes.first ?? ReceiveOutcome(messageID: messageID, result: .ignored)
        }
    }
}
