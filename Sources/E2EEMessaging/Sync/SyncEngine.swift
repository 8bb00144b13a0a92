import E2EECrypto
import E2EEKeyStore

/// The account's sync, and its side of the connection (``ConnectionDelegate``): socket events go
/// to the receive path (and move the channel's verified mark), catch-up and polling page REST back
/// to the verified mark (docs/spec/sync.md guarantee 6, ``HistoryCatchUp``), `channel.new` adds and
/// subscribes channels, `keys.low_otp` for this device replenishes one-time prekeys. The
/// supervisor calls it one method at a time, in order; events of a socket reach it only after
/// that socket's first catch-up (the supervisor buffers them).
///
/// Built once, with the account, and kept for the account's life: whoever drives it — the
/// connection, ``Account/sync()``, the pre-send check — works on the same state. It **owns**
/// what only sync uses: the history cursor with the verified marks socket events move, the
/// channels caught up by this process (``RollbackGuard``), the per-channel failures and their
/// retry (``ChannelFailureLog``), the delete inference, the gate on event-driven channel-list
/// refreshes and the throttle on `keys.low_otp` reactions. It **does not own** channels, keys,
/// the arrivals path or the outbox: those are its host's (``SyncHost``), held weakly because the
/// host owns the engine; without a host, catch-ups throw `CancellationError` and events are dropped.
final class SyncEngine: ConnectionDelegate, Sendable {
    /// The account's store (catch-up plans, removals, rollback marks).
    let store: KeyStore
    /// Where sync's own events go (failures, typing, refused input, removals).
    let events: EventBroadcaster
    /// The receive pipeline, for what does not go through the host's arrivals path: edits and
    /// re-driving pending messages after a catch-up.
    let pipeline: ReceivePipeline
    /// Pages one channel back to its verified mark.
    let history: HistoryCatchUp
    /// The time now (the account's clock).
    let now: @Sendable () -> StoreTime
    /// Our user id: a pre-send gap scan keeps this device's own messages.
    let userID: UserID
    /// This device's id: `keys.low_otp` is acted on for this device only.
    let deviceID: DeviceID
    private let link = SyncHostLink()

    /// The channel history positions kept in the store, and the verified marks socket events move.
    let cursor: HistoryCursor
    /// Channels a catch-up of this process read to the present (nothing is sent before).
    let rollbackGuard = RollbackGuard()
    /// The latest catch-up failure per channel, its backoff and the retry (docs/spec/sync.md guarantee 10).
    let channelFailures = ChannelFailureLog()
    /// Messages a catch-up no longer found, until a later read confirms them deleted.
    let deleteInference: DeleteInference
    /// Channel-list refreshes caused by events naming unknown channels, coalesced and spaced.
    let directoryRefreshes = DirectoryRefreshGate()
    /// `keys.low_otp` frames acted on at most once per interval.
    let lowPrekeyReactions = ReactionThrottle(interval: .seconds(60))
    /// The server's deletes, as marks.
    let removals: ServerRemovals

    /// An engine with no host yet: the account attaches itself (``attach(to:)``) once it exists.
    init(store: KeyStore, api: any ChatServerAPI, events: EventBroadcaster, pipeline: ReceivePipeline, locks: KeyedAsyncLock,
         userID: UserID, deviceID: DeviceID, settings: SyncSettings) {
        self.store = store
        self.events = events
        self.pipeline = pipeline
        self.history = HistoryCatchUp(api: api, store: store, limit: settings.catchUpLimit, byteLimit: settings.catchUpByteLimit)
        self.now = settings.now
        self.userID = userID
        self.deviceID = deviceID
        self.cursor = HistoryCursor(store: store, locks: locks, now: settings.now, marks: VerifiedMarks(),
                                    overlap: settings.catchUpOverlap.microsecondCount, maxSkew: settings.maxClockSkew.microsecondCount)
        self.deleteInference = DeleteInference(now: settings.now)
        self.removals = ServerRemovals(store: store, events: events, now: settings.now)
    }

    /// Attaches the host (held weakly): the account, at the end of its initializer.
    func attach(to host: any SyncHost) {
        link.attach(host)
    }

    /// The host, for work that cannot go on without it.
    /// - Throws: `CancellationError` when the account is gone (nothing is left to sync for).
    func requireHost() throws -> any SyncHost {
        guard let host = link.host else { throw CancellationError() }
        return host
    }

    /// The host if it is still there (for work that is simply dropped without it).
    var host: (any SyncHost)? { link.host }

    func channelsToSubscribe() async -> [ChannelID] {
        guard let host else { return [] }
        return (try? await host.channels().map(\.id)) ?? []
    }

    func catchUp(reason: CatchUpReason) async throws {
        let host = try requireHost()
        switch reason {
        case .subscribed(let channelID), .subscribedFollowUp(let channelID):
            let channel = try await host.channel(id: channelID)
            try await catchUpChannels([channel])
        case .connectedFollowUp, .foreground:
            try await catchUpAll()
            await host.watchMembership()
        case .connected:
            try await catchUpAll()
        }
    }

    func poll() async throws {
        let host = try requireHost()
        try await catchUpAll()
        await host.watchMembership()
    }

    /// Every channel: the list re-read, each channel paged back to the overlap (the one asked
    /// for first, ``CatchUpPlan``), pending re-driven, keys maintained. A failure of one
    /// channel's reads (a 403, a refused copy, an undecodable page, and also a 5xx, a 429 or no
    /// answer in time) is recorded for it, with its own backoff, and the rest goes on
    /// (docs/spec/sync.md guarantee 10); one that stops everything (logged out, no answer for the
    /// channel list) is thrown.
    /// `everyChannel`: read channels in their backoff too (a caller asked for a sync); the
    /// connection's own catch-ups and polls leave them to their retry.
    func catchUpAll(first asked: ChannelID? = nil, everyChannel: Bool = false) async throws {
        let host = try requireHost()
        var channels: [ChatChannel]
        do {
            channels = try await host.refreshChannels()
        } catch where SyncFailureScope(error) == .thisChannel {
            await recordSyncFailure(channelID: nil, error)
            channels = try await host.channels()
        }
        let now = self.now()
        let serverFailedLast = await channelFailures.serverFailedLast
        let readAll = everyChannel || serverFailedLast
        var due: [ChatChannel] = []
        for channel in try await CatchUpPlan.ordered(channels, first: asked, store: store) {
            let isDue = await channelFailures.isDue(channel.id, at: now)
            if readAll || channel.id == asked || isDue { due.append(channel) }
        }
        try await catchUpChannels(due)
        try await isolated(channelID: nil) { _ = try await self.pipeline.redrivePending() }
        try await isolated(channelID: nil) { try await host.maintainKeysIfNeeded() }
        // Keys renewed after a detected rollback before any waiting draft is encrypted (docs/spec/protocol.md §3).
        try await isolated(channelID: nil) { try await host.renewKeysIfRolledBack() }
        await host.serverAnswered()  // the server answers: entries waiting for it go out
    }

    /// Runs `work`; a failure of its channel alone is recorded and surfaced, not thrown.
    func isolated(channelID: ChannelID?, _ work: () async throws -> Void) async throws {
        do {
            try await work()
            if let channelID { await channelFailures.clear(channelID) }
        } catch where SyncFailureScope(error) == .thisChannel {
            await recordSyncFailure(channelID: channelID, error)
        }
    }

    func catchUp(channelID: ChannelID) async throws {
        try await catchUp(requireHost().channel(id: channelID))
    }

    /// Catches `channel` up; returns whether it was read to the present. Before the first send
    /// in a channel (`forSending`, docs/spec/protocol.md §3.13–§3.14), a catch-up that stops at
    /// its limit scans the rest of the gap for this device's own messages: a flood of other
    /// messages cannot push the evidence of a restored store out of sight. A catch-up that did
    /// not read to the present never opens the send gate. A channel that is no longer ours
    /// (403, 404) is left to the next channel list, unless `forSending`: then the sender gets
    /// the error.
    @discardableResult
    func catchUp(_ channel: ChatChannel, forSending: Bool = false) async throws -> Bool {
        guard let encryption = channel.encryption else { return true }  // nothing is read or sent there
        let host = try requireHost()
        let gateOpen = await rollbackGuard.isCaughtUp(channel.id)
        let (userID, deviceID) = (self.userID, self.deviceID)
        let scan = gateOpen || !forSending ? nil : HistoryCatchUp.GapScan(
            keeps: { $0.isFrom(userID: userID, deviceID: deviceID) }, maximumMessages: 4 * history.limit)
        let result: HistoryCatchUp.Result
        do {
            let mark = try await cursor.verifiedThrough(channelID: channel.id)
            result = try await history.recentMessages(channelID: channel.id, verifiedThrough: mark, scanning: scan)
        } catch ServerError.forbidden where !forSending, ServerError.notFound where !forSending {
            return false  // no longer ours: the next channel list drops it
        }
        if !result.keptPastLimit.isEmpty {
            // Only looked at for evidence: the gap itself stays for older paging.
            try await host.detectRollback(in: result.keptPastLimit, channelID: channel.id)
        }
        if !result.messages.isEmpty {
            _ = try await host.admit(result.messages, channel: ReceivingChannel(id: channel.id, encryption: encryption))
            try await removals.serverReturned(result.messages)
        }
        try await cursor.recordCatchUp(channelID: channel.id, result)
        // docs/spec/sync.md guarantee 9: rows the server stopped returning while we were away
        // are marked removed from the server, never erased.
        for messageID in try await deleteInference.confirmedDeletes(channelID: channel.id, read: result.messages, store: store) {
            try await removals.serverRemoved(messageID: MessageID(stored: messageID), channelID: channel.id)
        }
        guard result.readToPresent else { return false }
        await rollbackGuard.markCaughtUp(channel.id)
        return true
    }

    /// The send gate (docs/spec/protocol.md §3.13): the first time this process is about to
    /// encrypt for `channelID`, the channel is caught up (``catchUpBeforeSending(channelID:)``);
    /// after that, nothing is read again.
    /// - Throws: ``ServerError``, key store errors (the sender gets them: nothing is encrypted).
    func catchUpBeforeFirstSend(channelID: ChannelID) async throws {
        guard await !rollbackGuard.isCaughtUp(channelID) else { return }
        try await catchUpBeforeSending(channelID: channelID)
    }

    /// Catches `channelID` up before this process first encrypts for it (docs/spec/protocol.md §3.13):
    /// a failure is thrown to the sender, not recorded. When even the scan past the limit could
    /// not read the channel to the present (a gap of more than its bound), what was read proves
    /// nothing: the store is treated as rolled back, so its keys are renewed before the send
    /// (§3.12), and the gate opens.
    /// - Throws: ``ServerError``, key store errors.
    func catchUpBeforeSending(channelID: ChannelID) async throws {
        guard try await catchUp(requireHost().channel(id: channelID), forSending: true) else {
            try await store.markRolledBack(at: now())
            await rollbackGuard.markCaughtUp(channelID)
            return
        }
    }

    func received(_ event: RealtimeEvent) async {
        guard let host else { return }  // the account is gone: nothing to apply the event to
        do {
            try await handle(event, host: host)
        } catch {
            events.publish(.inputRefused(reason: "event not applied: \(error)"))
        }
    }

    private func handle(_ event: RealtimeEvent, host: any SyncHost) async throws {
        switch event {
        case .messageNew(let message):
            guard let channel = try await knownChannel(message.channelID, host: host), let encryption = channel.encryption else { return }
            _ = try await host.admit([message], channel: ReceivingChannel(id: channel.id, encryption: encryption))
            try await removals.serverReturned([message])
            cursor.socketDelivered(message)
        case .messageEdit(let edit):
            guard let channel = try await knownChannel(edit.channelID, host: host), let encryption = channel.encryption else { return }
            _ = try await pipeline.ingestEdit(edit, channel: ReceivingChannel(id: channel.id, encryption: encryption))
        case .messageDelete(let messageID, let channelID):
            // Only the sender deletes: the server's event is a hint (docs/spec/sync.md guarantee 9).
            guard let channel = try await knownChannel(channelID, host: host) else { return }
            try await removals.serverRemoved(messageID: messageID, channelID: channel.id)
        case .typing(let userID, let channelID, let started):
            events.publish(.typing(userID: userID, channelID: channelID, started: started))
        case .channelNew(let channel):
            try await host.adoptAnnouncedChannel(channel)
        case .lowOneTimePreKeys(let deviceID, let remaining):
            // The frame is untrusted (a malicious server can send any number): at most one is
            // acted on per interval, and what it does is bounded (KeyMaintenance.replenish).
            guard deviceID == self.deviceID, await lowPrekeyReactions.allow() else { return }
            _ = try await host.replenishOneTimePrekeys(target: nil, serverRemaining: remaining)
        case .senderKeyNew:
            return  // federated keys only; our keys travel in SKDs
        case .serverError(let text):
            events.publish(.inputRefused(reason: "server error frame (\(text.count) characters)"))
        case .unknown(let type):
            events.publish(.inputRefused(reason: "unknown event type (\(type.count) characters)"))
        }
    }

    /// Events arrive for channels we never asked for (docs/spec/server-api.md note 4): only our channels count.
    /// An unknown id re-reads the channel list at most once per
    /// ``DirectoryRefreshGate/minimumInterval`` (concurrent misses share it), so a flood of
    /// events naming unknown channels cannot amplify into requests.
    private func knownChannel(_ id: ChannelID, host: any SyncHost) async throws -> ChatChannel? {
        if let channel = try await host.channels().first(where: { $0.id == id }) { return channel }
        guard let refreshed = try await directoryRefreshes.refreshIfDue({ try await host.refreshChannels() }) else { return nil }
        return refreshed.first { $0.id == id }
    }

    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool {
        guard let host else { return false }  // the account is gone: nothing to reconnect for
        let missed = try await host.socketMissedMessages(connectedFor: connectedFor, grace: grace)
        // The same light, periodic look at the server learns membership changes while connected.
        await host.watchMembershipOnDeafCheck()
        return missed
    }

    func inputRefused(reason: String) async {
        events.publish(.inputRefused(reason: reason))
    }

    func sessionEnded() async {
        events.publish(.sessionEnded)
    }

    func willDisconnectForBackground() async {
        // Messages are already durable (the store commits per batch); the marks socket events
        // moved are kept so the next catch-up need not read that stretch again.
        try? await cursor.saveSocketMarks()
    }
}
