@_spi(StoreInternals) import E2EEKeyStore

/// How much of a channel's history is in the store, kept in its ``SyncCursor``:
/// - `newest` is the **verified mark**: its time is one through which the store has every
///   message of the channel from the region's start without a gap (the newest message a
///   catch-up read over REST, less ``overlap``, which covers rows committed after their event
///   and messages posted with an older server time). Catch-ups page back to it
///   (``HistoryCatchUp``). A catch-up that stopped at its limit moves it too, but only after
///   recording the stretch it left unread (``UnreadRange``): the mark says where the next
///   catch-up may stop, the range what the send gate has still to read (docs/spec/protocol.md §3.13).
///   Only REST reads move it: a socket can lose events without noticing (the server's fan-out
///   dies and another client's socket heals it, docs/spec/server-api.md §12), so what a socket
///   delivered proves nothing about what it did not (docs/spec/sync.md guarantee 6).
/// - `oldest` is where paging older history goes on; `historyComplete`: nothing older remains.
///
/// Every read-modify-write runs under the channel's history lock, shared by the catch-up and
/// ``OlderHistoryLoader``.
struct HistoryCursor: Sendable {
    let store: KeyStore
    let locks: KeyedAsyncLock
    let now: @Sendable () -> StoreTime
    /// Microseconds of server time the mark stays behind the newest message verified.
    let overlap: Int64
    /// Microseconds past this device's clock a mark may be set to: the server sets
    /// `created_at`, and a mark moved past what this device can verify by a forged one would
    /// make every later catch-up stop early (``AccountConfiguration/maxClockSkew``).
    var maxSkew: Int64 = 0

    /// The mark a message at `micros` (server time) verifies: `overlap` behind it, and never
    /// beyond this device's clock plus ``maxSkew``.
    private func markBehind(_ micros: Int64) -> Int64 {
        min(micros - overlap, ceiling)
    }

    /// The latest mark this device can verify now.
    private var ceiling: Int64 { now().microseconds + maxSkew }

    /// The channel's verified mark (microseconds of server time), or nil when it has none yet.
    /// - Throws: key store errors.
    func verifiedThrough(channelID: ChannelID) async throws -> Int64? {
        let saved = try await store.syncCursor(channelID: channelID.rawValue)?.newest?.createdAt.microseconds
        // A mark saved past the ceiling (by an earlier version) is read as the ceiling.
        return saved.map { min($0, ceiling) }
    }

    /// The lock key of a channel's history.
    static func lockKey(_ channelID: ChannelID) -> String { "history:\(channelID)" }

    /// Where paging older history starts: the saved position, else the oldest stored message
    /// (nil: the store has none, page from the newest). `complete` when nothing older remains.
    /// - Throws: key store errors.
    func start(channelID: ChannelID) async throws -> (position: TimelineCursor?, complete: Bool) {
        let saved = try await store.syncCursor(channelID: channelID.rawValue)
        if saved?.historyComplete == true { return (saved?.oldest, true) }
        if let oldest = saved?.oldest { return (oldest, false) }
        return (try await store.oldestTimelineMessage(channelID: channelID.rawValue), false)
    }

    /// Records that messages back to `oldest` are in the store (an older position than the
    /// saved one wins), and that the history is complete when `complete`.
    /// - Throws: key store errors.
    func recordPaged(channelID: ChannelID, oldest: TimelineCursor?, complete: Bool) async throws {
        try await update(channelID: channelID) { cursor in
            if let oldest, cursor.oldest.map({ (oldest.createdAt, oldest.messageID) < ($0.createdAt, $0.messageID) }) ?? true {
                cursor.oldest = oldest
            }
            if complete { cursor.historyComplete = true }
        }
    }

    /// Records what a catch-up learnt: the verified mark moves up behind the newest message it
    /// read; it reached the start (the history is
    /// complete), or it stopped at its limit before the mark, so older paging must go on from
    /// the oldest message it fetched (the gap behind it is paged again; what is known is deduped).
    /// - Throws: key store errors.
    func recordCatchUp(channelID: ChannelID, _ result: HistoryCatchUp.Result) async throws {
        let oldest = result.messages.first.map { TimelineCursor(createdAt: StoreTime(microseconds: $0.createdAt.microseconds), messageID: $0.id.rawValue) }
        let mark = result.messages.last.map { (markBehind($0.createdAt.microseconds), $0.id.rawValue) }
        try await update(channelID: channelID) { cursor in
            if let (time, id) = mark { Self.raise(&cursor, to: time, messageID: id) }
            if result.reachedStart {
                if let oldest, cursor.oldest.map({ (oldest.createdAt, oldest.messageID) < ($0.createdAt, $0.messageID) }) ?? true {
                    cursor.oldest = oldest
                }
                cursor.historyComplete = true
            } else if result.stoppedAtLimit {
                cursor.oldest = oldest
                cursor.historyComplete = false
            }
        }
    }

    /// Moves the verified mark forward to `micros` (never back).
    private static func raise(_ cursor: inout SyncCursor, to micros: Int64, messageID: String) {
        guard (cursor.newest?.createdAt.microseconds ?? .min) < micros else { return }
        cursor.newest = TimelineCursor(createdAt: StoreTime(microseconds: micros), messageID: messageID)
    }

    private func update(channelID: ChannelID, _ change: @Sendable @escaping (inout SyncCursor) -> Void) async throws {
        let (store, now) = (store, now)
        try await locks.withLock(Self.lockKey(channelID)) {
            let saved = try await store.syncCursor(channelID: channelID.rawValue)
            var cursor = saved ?? SyncCursor(channelID: channelID.rawValue, newest: nil, oldest: nil, historyComplete: false, updatedAt: now())
            change(&cursor)
            if let saved, saved.oldest == cursor.oldest, saved.newest == cursor.newest, saved.historyComplete == cursor.historyComplete { return }
            cursor.updatedAt = now()
            try await store.storeSyncCursor(cursor)
        }
    }
}
