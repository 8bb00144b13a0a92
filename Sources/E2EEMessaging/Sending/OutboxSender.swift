import E2EECrypto
import E2EEKeyStore

/// Sends the outbox (docs/spec/sync.md "Outbox and delivery states"): per channel, in sequence order,
/// one entry at a time; `.queued → .sending → .sent` on the server's answer, `.delivered` when
/// our own message shows up (``ownMessageSeen(_:)``), `.failed` after the policy's attempts (an
/// unreachable server leaves entries `.queued`: ``unreachable(_:reason:)``). A
/// retry resends the stored bytes, never a re-encryption; before resending something the
/// server may already have (an earlier attempt got no answer), it reconciles by content hash
/// against the channel's recent messages, and deletes a copy the server stored twice.
actor OutboxSender {
    let store: KeyStore
    private let api: any ChatServerAPI
    let device: LocalDevice
    let events: EventBroadcaster
    let policy: OutboxPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let now: @Sendable () -> StoreTime
    /// Encrypts drafts queued while the server was unreachable.
    let drafts: DraftEncryptor
    private(set) var drains: [ChannelID: Task<Void, Never>] = [:]
    private var rerun: Set<ChannelID> = []
    var stopped = false
    private(set) var isShutDown = false
    /// Unanswered tries in a row, per channel (``unreachable(_:reason:)``).
    var unreachableStreaks: [ChannelID: Int] = [:]
    /// Channels waiting for the server to answer again.
    var parked: Set<ChannelID> = []
    /// Wakes parked channels after the policy's interval.
    var wakeUp: Task<Void, Never>?
    /// `.queued` entries already looked at (``adoptEntriesQueuedElsewhere(olderThan:)``).
    var seenQueued: Set<String> = []
    /// Callers of ``waitUntilSettled()``, resumed whenever a drain ends or a try goes unanswered.
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Told the server id of each message the server took (its 201), while a realtime
    /// connection expects the echoes (the deaf-socket watchdog); nil while none does.
    private var sentObserver: (@Sendable (String) async -> Void)?
    /// Keeps the clock readings of text 1.3 from each post's 201 (docs/spec/protocol.md §10.19).
    private let clockWatch: ClockWatch?

    init(store: KeyStore, api: any ChatServerAPI, device: LocalDevice, events: EventBroadcaster, policy: OutboxPolicy, drafts: DraftEncryptor,
         sleep: @escaping @Sendable (Duration) async throws -> Void, now: @escaping @Sendable () -> StoreTime, clockWatch: ClockWatch? = nil) {
        self.clockWatch = clockWatch
        self.store = store
        self.api = api
        self.device = device
        self.events = events
        self.policy = policy
        self.drafts = drafts
        self.sleep = sleep
        self.now = now
    }

    /// Sets (or with nil removes) who is told the server id of each message the server takes:
    /// the connection's watchdog, directly — never through the app's lossy event stream.
    func observeSent(_ observer: (@Sendable (String) async -> Void)?) {
        sentObserver = observer
    }

    /// Starts (or re-runs) sending a channel's queue.
    func kick(channelID: ChannelID) {
        guard !isShutDown else { return }
        stopped = false
        parked.remove(channelID)
        guard drains[channelID] == nil else {
            rerun.insert(channelID)
            return
        }
        drains[channelID] = Task { await self.drain(channelID: channelID) }
    }

    /// Sends every channel with entries waiting (at start-up: a kill during a send left
    /// `.sending` entries, which are reconciled first).
    func resumeAll() async throws {
        let waiting = try await store.outbox(states: [.queued, .sending])
        seenQueued.formUnion(waiting.filter { $0.state == .queued }.map(\.localID))
        for channel in Set(waiting.map(\.channelID)) { kick(channelID: ChannelID(stored: channel)) }
    }

    /// Stops sending (logout, session ended); entries stay queued.
    func stop() {
        stopped = true
        for task in drains.values { task.cancel() }
        drains.removeAll()
        settleChanged()
        wakeUp?.cancel()
        wakeUp = nil
    }

    /// Stops for good: in-flight sends are abandoned where they are, nothing more is posted.
    /// Returns once every cancelled send has ended, so nothing of the outbox touches the
    /// store afterwards (the app may close it).
    func shutdown() async {
        isShutDown = true
        let running = Array(drains.values) + [wakeUp].compactMap { $0 }
        stop()
        for task in running { await task.value }
    }

    /// Waits until no channel is being sent (tests); channels waiting for an unreachable server
    /// are not being sent.
    func waitUntilIdle() async {
        while let task = drains.values.first { await task.value }
    }

    /// Waits until every channel being sent is done or had a try go unanswered: what can be
    /// posted now was posted (or refused), and the rest waits for the server, `.queued`, and
    /// goes out later in the background. Unlike ``waitUntilIdle()`` it never waits out the
    /// retry schedule of an unreachable server.
    func waitUntilSettled() async {
        while drains.keys.contains(where: { (unreachableStreaks[$0] ?? 0) == 0 }) {
            await withCheckedContinuation { settleWaiters.append($0) }
        }
    }

    /// Resumes the callers of ``waitUntilSettled()`` so that they look again.
    func settleChanged() {
        let waiters = settleWaiters
        settleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// A manual retry of a `.failed` entry.
    /// - Throws: ``MessagingError/unknownOutboxEntry(_:)``.
    func retry(localID: OutboxEntryID) async throws {
        guard let entry = try await loadEntry(localID: localID), entry.state == .failed else {
            throw MessagingError.unknownOutboxEntry(localID.rawValue)
        }
        try await store.requeueFailed(localID: localID.rawValue, at: now())
        publish(entry, .queued, serverID: nil)
        kick(channelID: ChannelID(stored: entry.channelID))
    }

    private func drain(channelID: ChannelID) async {
        repeat {
            rerun.remove(channelID)
            while !stopped, !Task.isCancelled, let entry = try? await nextEntry(channelID: channelID) {
                if await !send(entry) { break }
            }
        } while rerun.contains(channelID) && !stopped
        drains[channelID] = nil
        settleChanged()
    }

    private func nextEntry(channelID: ChannelID) async throws -> OutboxMessage? {
        try await store.outbox(states: [.queued, .sending]).first { $0.channelID == channelID.rawValue }
    }

    /// One attempt at `entry`; returns `false` when sending must stop for now.
    private func send(_ entry: OutboxMessage) async -> Bool {
        let postsMessage = entry.kind == .message || entry.kind == .skd
        if entry.isDraft, entry.state == .queued { return await encryptWaitingDraft(entry) }
        do {
            if entry.state == .sending {
                // Left by a kill or an unanswered attempt: the server may hold it already.
                if postsMessage, try await reconcile(entry) { return true }
                let giveUp = entry.attempts >= policy.maxAttempts
                try await store.markFailed(localID: entry.localID, error: "outcome unknown", giveUp: giveUp, at: now())
                publish(entry, giveUp ? .failed : .queued, serverID: nil)
                return true
            }
            try await store.markSending(localID: entry.localID, at: now())
            publish(entry, .sending, serverID: nil)
            if entry.attempts > 0, postsMessage, try await reconcile(entry) { return true }
            try await perform(entry)
            unreachableStreaks[ChannelID(stored: entry.channelID)] = nil
            return true
        } catch {
            return await failed(entry, error)
        }
    }

    private func perform(_ entry: OutboxMessage) async throws {
        switch entry.kind {
        case .message, .skd:
            let sent = try await api.sendMessage(channelID: ChannelID(stored: entry.channelID), OutgoingMessage(
                content: entry.content, contentType: entry.contentType, protocolVersion: 2, senderDeviceID: device.deviceID))
            try await recordSent(entry, serverID: sent.id.rawValue, createdAt: sent.createdAt)
            // The readings are best effort: a failure to store them never fails the send.
            try? await clockWatch?.recordPost(createdAt: sent.createdAt.microseconds)
        case .edit:
            _ = try await api.editMessage(id: MessageID(stored: entry.targetMessageID ?? ""), content: entry.content)
            try await store.completeEditOrDelete(localID: entry.localID, at: now())
            publish(entry, .delivered, serverID: entry.targetMessageID)
            events.publish(.timeline([TimelineChange(channelID: ChannelID(stored: entry.channelID), messageID: entry.targetMessageID.map { MessageID(stored: $0) } ?? "", kind: .edited)]))
        case .delete:
            do {
                try await api.deleteMessage(id: MessageID(stored: entry.targetMessageID ?? ""))
            } catch ServerError.notFound {
                // Already gone: the delete's effect holds.
            }
            try await store.completeEditOrDelete(localID: entry.localID, at: now())
            publish(entry, .delivered, serverID: entry.targetMessageID)
            events.publish(.timeline([TimelineChange(channelID: ChannelID(stored: entry.channelID), messageID: entry.targetMessageID.map { MessageID(stored: $0) } ?? "", kind: .deleted)]))
        }
    }

    private func failed(_ entry: OutboxMessage, _ error: any Error) async -> Bool {
        // Stopped mid-send (logout, shutdown): leave the entry as it is, like a kill would; the
        // next start reconciles a `.sending` entry before resending it.
        if error is CancellationError || Task.isCancelled { return false }
        let reason = String(describing: error)
        switch SendFailure(error) {
        case .notAuthenticated:
            if (try? await store.markFailed(localID: entry.localID, error: reason, giveUp: false, at: now())) != nil {
                publish(entry, .queued, serverID: nil)
            }
            stopped = true
            return false
        case .refused:
            try? await store.markFailed(localID: entry.localID, error: reason, giveUp: true, at: now())
            publish(entry, .failed, serverID: nil)
            return true
        case .unreachable:
            if (try? await store.markUnreachable(localID: entry.localID, error: "unreachable: \(reason)", at: now())) != nil {
                publish(entry, .queued, serverID: nil)
            }
            return await unreachable(entry, reason: reason)
        case .unknownOutcome:
            let answered = entry.answeredFailures + 1
            let outcome = try? await store.markAnsweredFailure(localID: entry.localID, error: reason, limit: policy.maxAttempts, at: now())
            if let giveUp = outcome { publish(entry, giveUp ? .failed : .queued, serverID: nil) }
            if outcome == true { return true }
            do {
                try await sleep(policy.delay(afterAttempt: answered))
            } catch {
                return false
            }
            return true
        }
    }

    /// Looks for `entry` among the channel's recent messages from this device (by content hash).
    /// Found: recorded as sent (and the extra copies deleted). Returns whether it was found.
    private func reconcile(_ entry: OutboxMessage) async throws -> Bool {
        let page = try await api.fittingMessages(channelID: ChannelID(stored: entry.channelID), before: nil, limit: policy.reconcileWindow).page
        let copies = page.messages
            .filter { $0.isFrom(userID: device.userID, deviceID: device.deviceID) && ConstantTime.equals(SHA256.hash(utf8: $0.content), entry.contentHash) }
            .sorted(by: ServerMessage.timelineOrder)
        guard let first = copies.first else { return false }
        try await recordSent(entry, serverID: first.id.rawValue, createdAt: first.createdAt)
        for extra in copies.dropFirst() { try await deleteDuplicate(serverID: extra.id.rawValue, of: entry.contentHash) }
        return true
    }

    func recordSent(_ entry: OutboxMessage, serverID: String, createdAt: ServerTimestamp) async throws {
        let row: SentRow
        do {
            row = try await store.markSent(localID: entry.localID, serverMessageID: serverID,
                                              createdAt: StoreTime(microseconds: createdAt.microseconds),
                                              senderUserID: device.userID.rawValue, senderDeviceID: device.deviceID.rawValue)
        } catch KeyStoreError.invalidTransition {
            // Our echo recorded it first. If under another id, the server stored it twice.
            if let current = try await loadEntry(localID: OutboxEntryID(stored: entry.localID)), current.serverMessageID != serverID {
                try await deleteDuplicate(serverID: serverID, of: entry.contentHash)
            }
            return
        }
        let channelID = ChannelID(stored: entry.channelID)
        switch row {
        case .message:
            // The local echo leaves and the posted row enters, in one commit (one update of an
            // observed timeline).
            publish(entry, .sent, serverID: serverID, changes: [TimelineChange(channelID: channelID, messageID: MessageID(stored: serverID), kind: .inserted)])
        case .control(let erased?):
            // A tombstone: its message is erased here, and the `DELETE` of the server's copy
            // was queued behind it (docs/spec/protocol.md §6.7).
            publish(entry, .sent, serverID: serverID, changes: [TimelineChange(channelID: channelID, messageID: MessageID(stored: erased), kind: .deleted)])
            kick(channelID: channelID)
        case .control(nil), .none:
            publish(entry, .sent, serverID: serverID)
        }
        await sentObserver?(serverID)
    }

    /// Deletes the server's extra copy `serverID` of our own message with content hash
    /// `contentHash`. The local row goes only if it is that copy — from this device, with those
    /// bytes — so a server that names someone else's message cannot make us forget it.
    func deleteDuplicate(serverID: String, of contentHash: [UInt8]) async throws {
        do {
            try await api.deleteMessage(id: MessageID(stored: serverID))
        } catch ServerError.notFound {
            // Already gone.
        }
        try await store.forgetDuplicateCopy(serverMessageID: serverID, senderUserID: device.userID.rawValue, senderDeviceID: device.deviceID.rawValue,
                                            contentHash: contentHash)
    }

    /// The outbox entry `localID`, as the store holds it now.
    func loadEntry(localID: OutboxEntryID) async throws -> OutboxMessage? {
        try await store.read { [store] db in try store.outboxStore.loadOutboxMessage(localID: localID.rawValue, db) }
    }

    /// The outbox entry that posted `serverID`.
    func loadEntry(serverID: String) async throws -> OutboxMessage? {
        try await store.read { [store] db in try store.outboxStore.loadOutboxMessage(serverMessageID: serverID, db) }
    }
}
