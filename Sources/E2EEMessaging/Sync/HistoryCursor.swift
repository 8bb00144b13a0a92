import E2EEKeyStore

/// How far back a channel's history is in the store, kept in its ``SyncCursor`` (`oldest`:
/// where paging older history goes on; `historyComplete`: nothing older remains). Every
/// read-modify-write runs under the channel's history lock, shared by the catch-up and
/// ``OlderHistoryLoader``.
struct HistoryCursor: Sendable {
    let store: KeyStore
    let locks: KeyedAsyncLock
    let now: @Sendable () -> StoreTime

    /// The lock key of a channel's history.
    static func lockKey(_ channelID: String) -> String { "history:\(channelID)" }

    /// Where paging older history starts: the saved position, else the oldest stored message
    /// (nil: the store has none, page from the newest). `complete` when nothing older remains.
    /// - Throws: key store errors.
    func start(channelID: String) async throws -> (position: TimelineCursor?, complete: Bool) {
        let saved = try await store.syncCursor(channelID: channelID)
        if saved?.historyComplete == true { return (saved?.oldest, true) }
        if let oldest = saved?.oldest { return (oldest, false) }
        return (try await store.oldestTimelineMessage(channelID: channelID), false)
    }

    /// Records that messages back to `oldest` are in the store (an older position than the
    /// saved one wins), and that the history is complete when `complete`.
    /// - Throws: key store errors.
    func recordPaged(channelID: String, oldest: TimelineCursor?, complete: Bool) async throws {
        try await update(channelID: channelID) { cursor in
            if let oldest, cursor.oldest.map({ (oldest.createdAt, oldest.messageID) < ($0.createdAt, $0.messageID) }) ?? true {
                cursor.oldest = oldest
            }
            if complete { cursor.historyComplete = true }
        }
    }

    /// Records what a catch-up learnt: it reached the start (the history is complete), or it
    /// stopped at its limit before what the store had, so older paging must go on from the
    /// oldest message it fetched (the gap behind it is paged again; what is known is deduped).
    /// - Throws: key store errors.
    func recordCatchUp(channelID: String, _ result: HistoryCatchUp.Result) async throws {
        let oldest = result.messages.first.map { TimelineCursor(createdAt: StoreTime(microseconds: $0.createdAt.microseconds), messageID: $0.id) }
        if result.reachedStart {
            try await recordPaged(channelID: channelID, oldest: oldest, complete: true)
        } else if result.stoppedAtLimit {
            try await update(channelID: channelID) { cursor in
                cursor.oldest = oldest
                cursor.historyComplete = false
            }
        }
    }

    private func update(channelID: String, _ change: @Sendable @escaping (inout SyncCursor) -> Void) async throws {
        let (store, now) = (store, now)
        try await locks.withLock(Self.lockKey(channelID)) {
            let saved = try await store.syncCursor(channelID: channelID)
            var cursor = saved ?? SyncCursor(channelID: channelID, newest: nil, oldest: nil, historyComplete: false, updatedAt: now())
            change(&cursor)
            if let saved, saved.oldest == cursor.oldest, saved.historyComplete == cursor.historyComplete { return }
            cursor.updatedAt = now()
            try await store.storeSyncCursor(cursor)
        }
    }
}
