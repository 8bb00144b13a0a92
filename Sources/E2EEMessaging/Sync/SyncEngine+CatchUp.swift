@_spi(StoreInternals) import E2EEKeyStore

/// Catch-up over REST (docs/spec/sync.md guarantee 6): every channel, one channel, and the
/// catch-up before this process first sends in a channel (docs/spec/protocol.md §3.13), each
/// paged back to the channel's verified mark and handed to the host's arrivals path.
extension SyncEngine {
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
            channels = try await host.refreshAllChannels()
        } catch where SyncFailureScope(error) == .thisChannel {
            await recordSyncFailure(channelID: nil, error)
            channels = try await host.allChannels()
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
        await host.noticeOwnNewDevices()  // a login of ours is held and surfaced now
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

    /// Catches `channel` up; returns whether it was read to the present. A catch-up that stops
    /// at its limit records the range it left unread before the verified mark moves past it
    /// (docs/spec/protocol.md §3.13): the mark tells later catch-ups where to stop, the range
    /// tells the send gate what it has not read. Before the first send in a channel
    /// (`forSending`), the recorded range is scanned for this device's own messages (§3.14,
    /// ``UnreadRangeScan``), waiting out 429s unless `waitingOutRateLimits` is false; a flood of
    /// other messages cannot push the evidence of a restored store out of sight, whether the app
    /// listened first or sent first.
    /// While a range stays unread the send gate stays shut. A channel that is no longer ours
    /// (403, 404) is left to the next channel list, unless `forSending`: then the sender gets
    /// the error.
    @discardableResult
    func catchUp(_ channel: ChatChannel, forSending: Bool = false, waitingOutRateLimits: Bool = true) async throws -> Bool {
        guard let encryption = channel.encryption else { return true }  // nothing is read or sent there
        let host = try requireHost()
        var rangeScan = self.rangeScan
        if !waitingOutRateLimits { rangeScan.waits.maximumWaits = 0 }
        let result: HistoryCatchUp.Result
        let mark: Int64?
        do {
            mark = try await cursor.verifiedThrough(channelID: channel.id)
            result = try await history.recentMessages(channelID: channel.id, verifiedThrough: mark, waits: forSending ? rangeScan.waits : nil)
        } catch ServerError.forbidden where !forSending, ServerError.notFound where !forSending {
            return false  // no longer ours: the next channel list drops it
        }
        if result.stoppedAtLimit, let oldest = result.messages.first {
            // Recorded before the mark moves past it, so a kill in between loses nothing.
            let resume = TimelineCursor(createdAt: StoreTime(microseconds: oldest.createdAt.microseconds), messageID: oldest.id.rawValue)
            try await store.recordUnreadRange(channelID: channel.id.rawValue, UnreadRange(below: mark, resume: resume), at: now())
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
        if forSending {
            let (userID, deviceID) = (self.userID, self.deviceID)
            let outcome = try await rangeScan.scan(channelID: channel.id, keeps: { $0.isFrom(userID: userID, deviceID: deviceID) }) { own in
                // Only looked at for evidence: the range itself stays for older paging.
                try await host.detectRollback(in: own, channelID: channel.id)
            }
            guard outcome == .readToEnd else { return false }
        } else if try await store.unreadRange(channelID: channel.id.rawValue) != nil {
            return false
        }
        await rollbackGuard.markCaughtUp(channel.id)
        return true
    }

    /// The send gate (docs/spec/protocol.md §3.13): the first time this process is about to
    /// encrypt for `channelID`, the channel is caught up (``catchUpBeforeSending(channelID:)``);
    /// after that, nothing is read again.
    /// - Throws: ``ServerError``, key store errors (the sender gets them: nothing is encrypted).
    func catchUpBeforeFirstSend(channelID: ChannelID, waitingOutRateLimits: Bool = true) async throws {
        guard await !rollbackGuard.isCaughtUp(channelID) else { return }
        try await catchUpBeforeSending(channelID: channelID, waitingOutRateLimits: waitingOutRateLimits)
    }

    /// Catches `channelID` up before this process first encrypts for it (docs/spec/protocol.md §3.13):
    /// a failure is thrown to the sender, not recorded (a 429 the scan waited out too often
    /// included: the entry stays queued and the scan goes on where it stopped). When the scan
    /// read its bound and the range goes on, what was read proves nothing: the store is treated
    /// as rolled back, so its keys are renewed before the send (§3.12) and the range goes with
    /// the renewal — unless the keys were renewed since the store was opened, or since their
    /// last renewal (or ever) this store encrypted nothing (``needsRenewalForUnreadGap()``): then the
    /// range is dropped without a renewal. The gate opens either way.
    /// - Throws: ``ServerError``, key store errors.
    func catchUpBeforeSending(channelID: ChannelID, waitingOutRateLimits: Bool = true) async throws {
        guard try await catchUp(requireHost().channel(id: channelID), forSending: true, waitingOutRateLimits: waitingOutRateLimits) else {
            if try await needsRenewalForUnreadGap() {
                try await store.markRolledBack(at: now())
            } else {
                try await store.clearUnreadRange(channelID: channelID.rawValue)
            }
            await rollbackGuard.markCaughtUp(channelID)
            return
        }
    }

    /// Whether a gap too long to read calls for new keys: not when they were renewed since this
    /// store was opened (a restored store is restored before it is opened, so nothing a later
    /// copy sent can use them), nor when this store has encrypted nothing since their last
    /// renewal, or ever (docs/spec/protocol.md §3.13).
    /// - Throws: key store errors.
    func needsRenewalForUnreadGap() async throws -> Bool {
        guard let renewed = try await store.keysRenewedAt() else {
            return try await store.encryptedSince(StoreTime(microseconds: .min))
        }
        if renewed >= openedAt { return false }
        return try await store.encryptedSince(renewed)
    }
}
