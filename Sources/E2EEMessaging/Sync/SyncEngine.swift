import E2EECrypto
import E2EEKeyStore

/// The account's side of the connection (``ConnectionDelegate``): socket events go to the
/// receive pipeline (and move the channel's verified mark), catch-up and polling page REST back
/// to the verified mark (docs/spec/sync.md guarantee 6, ``HistoryCatchUp``), `channel.new` adds and
/// subscribes channels, `keys.low_otp` for this device replenishes one-time prekeys. The
/// supervisor calls it one method at a time, in order; events of a socket reach it only after
/// that socket's first catch-up (the supervisor buffers them).
final class SyncEngine: ConnectionDelegate, Sendable {
    let account: Account
    let pipeline: ReceivePipeline
    let history: HistoryCatchUp

    /// The server's deletes, as marks.
    var removals: ServerRemovals {
        ServerRemovals(store: account.store, events: account.broadcaster, now: account.configuration.now)
    }

    init(account: Account, pipeline: ReceivePipeline, history: HistoryCatchUp) {
        self.account = account
        self.pipeline = pipeline
        self.history = history
    }

    func channelsToSubscribe() async -> [ChannelID] {
        (try? await account.channels().map(\.id)) ?? []
    }

    func catchUp(reason: CatchUpReason) async throws {
        switch reason {
        case .subscribed(let channelID), .subscribedFollowUp(let channelID):
            let channel = try await account.channel(id: channelID)
            try await catchUpChannels([channel])
        case .connectedFollowUp, .foreground:
            try await catchUpAll()
            await account.watchMembership()
        case .connected:
            try await catchUpAll()
        }
    }

    func poll() async throws {
        try await catchUpAll()
        await account.watchMembership()
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
        var channels: [ChatChannel]
        do {
            channels = try await account.refreshChannels()
        } catch where SyncFailureScope(error) == .thisChannel {
            await account.recordSyncFailure(channelID: nil, error)
            channels = try await account.channels()
        }
        let now = account.configuration.now()
        let serverFailedLast = await account.channelFailures.serverFailedLast
        let readAll = everyChannel || serverFailedLast
        var due: [ChatChannel] = []
        for channel in try await CatchUpPlan.ordered(channels, first: asked, store: account.store) {
            let isDue = await account.channelFailures.isDue(channel.id, at: now)
            if readAll || channel.id == asked || isDue { due.append(channel) }
        }
        try await catchUpChannels(due)
        try await isolated(channelID: nil) { _ = try await self.pipeline.redrivePending() }
        try await isolated(channelID: nil) { try await self.account.maintainKeysIfNeeded() }
        // Keys renewed after a detected rollback before any waiting draft is encrypted (docs/spec/protocol.md §3).
        try await isolated(channelID: nil) { try await self.account.renewKeysIfRolledBack() }
        await account.outbox.serverAnswered()  // the server answers: entries waiting for it go out
    }

    /// Runs `work`; a failure of its channel alone is recorded and surfaced, not thrown.
    func isolated(channelID: ChannelID?, _ work: () async throws -> Void) async throws {
        do {
            try await work()
            if let channelID { await account.channelFailures.clear(channelID) }
        } catch where SyncFailureScope(error) == .thisChannel {
            await account.recordSyncFailure(channelID: channelID, error)
        }
    }

    func catchUp(channelID: ChannelID) async throws {
        try await catchUp(account.channel(id: channelID))
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
        let cursor = account.historyCursor
        let gateOpen = await account.rollbackGuard.isCaughtUp(channel.id)
        let device = account.device
        let scan = gateOpen || !forSending ? nil : HistoryCatchUp.GapScan(
            keeps: { $0.isFrom(userID: device.userID, deviceID: device.deviceID) }, maximumMessages: 4 * history.limit)
        let result: HistoryCatchUp.Result
        do {
            let mark = try await cursor.verifiedThrough(channelID: channel.id)
            result = try await history.recentMessages(channelID: channel.id, verifiedThrough: mark, scanning: scan)
        } catch ServerError.forbidden where !forSending, ServerError.notFound where !forSending {
            return false  // no longer ours: the next channel list drops it
        }
        if !result.keptPastLimit.isEmpty {
            // Only looked at for evidence: the gap itself stays for older paging.
            try await account.detectRollback(in: result.keptPastLimit, channelID: channel.id)
        }
        if !result.messages.isEmpty {
            _ = try await account.admit(result.messages, channel: ReceivingChannel(id: channel.id, encryption: encryption))
            try await removals.serverReturned(result.messages)
        }
        try await cursor.recordCatchUp(channelID: channel.id, result)
        // docs/spec/sync.md guarantee 9: rows the server stopped returning while we were away
        // are marked removed from the server, never erased.
        for messageID in try await account.deleteInference.confirmedDeletes(channelID: channel.id, read: result.messages, store: account.store) {
            try await removals.serverRemoved(messageID: MessageID(stored: messageID), channelID: channel.id)
        }
        guard result.readToPresent else { return false }
        await account.rollbackGuard.markCaughtUp(channel.id)
        return true
    }

    /// Catches `channelID` up before this process first encrypts for it (docs/spec/protocol.md §3.13):
    /// a failure is thrown to the sender, not recorded. When even the scan past the limit could
    /// not read the channel to the present (a gap of more than its bound), what was read proves
    /// nothing: the store is treated as rolled back, so its keys are renewed before the send
    /// (§3.12), and the gate opens.
    /// - Throws: ``ServerError``, key store errors.
    func catchUpBeforeSending(channelID: ChannelID) async throws {
        guard try await catchUp(account.channel(id: channelID), forSending: true) else {
            try await account.store.markRolledBack(at: account.configuration.now())
            await account.rollbackGuard.markCaughtUp(channelID)
            return
        }
    }

    func received(_ event: RealtimeEvent) async {
        do {
            try await handle(event)
        } catch {
            account.broadcaster.publish(.inputRefused(reason: "event not applied: \(error)"))
        }
    }

    private func handle(_ event: RealtimeEvent) async throws {
        switch event {
        case .messageNew(let message):
            guard let channel = try await knownChannel(message.channelID), let encryption = channel.encryption else { return }
            _ = try await account.admit([message], channel: ReceivingChannel(id: channel.id, encryption: encryption))
            try await removals.serverReturned([message])
            account.historyCursor.socketDelivered(message)
        case .messageEdit(let edit):
            guard let channel = try await knownChannel(edit.channelID), let encryption = channel.encryption else { return }
            _ = try await pipeline.ingestEdit(edit, channel: ReceivingChannel(id: channel.id, encryption: encryption))
        case .messageDelete(let messageID, let channelID):
            // Only the sender deletes: the server's event is a hint (docs/spec/sync.md guarantee 9).
            guard let channel = try await knownChannel(channelID) else { return }
            try await removals.serverRemoved(messageID: messageID, channelID: channel.id)
        case .typing(let userID, let channelID, let started):
            account.broadcaster.publish(.typing(userID: userID, channelID: channelID, started: started))
        case .channelNew(let channel):
            try await account.adoptAnnouncedChannel(channel)
        case .lowOneTimePreKeys(let deviceID, let remaining):
            // The frame is untrusted (a malicious server can send any number): at most one is
            // acted on per interval, and what it does is bounded (KeyMaintenance.replenish).
            guard deviceID == account.deviceID, await account.lowPrekeyReactions.allow() else { return }
            try await account.replenishOneTimePrekeys(serverRemaining: remaining)
        case .senderKeyNew:
            return  // federated keys only; our keys travel in SKDs
        case .serverError(let text):
            account.broadcaster.publish(.inputRefused(reason: "server error frame (\(text.count) characters)"))
        case .unknown(let type):
            account.broadcaster.publish(.inputRefused(reason: "unknown event type (\(type.count) characters)"))
        }
    }

    /// Events arrive for channels we never asked for (docs/spec/server-api.md note 4): only our channels count.
    /// An unknown id re-reads the channel list at most once per
    /// ``DirectoryRefreshGate/minimumInterval`` (concurrent misses share it), so a flood of
    /// events naming unknown channels cannot amplify into requests.
    private func knownChannel(_ id: ChannelID) async throws -> ChatChannel? {
        if let channel = try await account.channels().first(where: { $0.id == id }) { return channel }
        let account = self.account
        guard let refreshed = try await account.directoryRefreshes.refreshIfDue({ try await account.refreshChannels() }) else { return nil }
        return refreshed.first { $0.id == id }
    }

    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool {
        let missed = try await account.socketMissedMessages(connectedFor: connectedFor, grace: grace)
        // The same light, periodic look at the server learns membership changes while connected.
        await account.watchMembershipOnDeafCheck()
        return missed
    }

    func inputRefused(reason: String) async {
        account.broadcaster.publish(.inputRefused(reason: reason))
    }

    func sessionEnded() async {
        account.broadcaster.publish(.sessionEnded)
    }

    func willDisconnectForBackground() async {
        // Messages are already durable (the store commits per batch); the marks socket events
        // moved are kept so the next catch-up need not read that stretch again.
        try? await account.historyCursor.saveSocketMarks()
    }
}
