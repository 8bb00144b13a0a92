@_spi(StoreInternals) import E2EEKeyStore

/// Pages a channel's history older than what the store holds, for an app scrolling up: from
/// the saved position (or the oldest stored message) back with the tie-safe pager (docs/spec/sync.md
/// guarantee 7: rows tied at a boundary are overlapped and deduped, never skipped), each page
/// merged through the receive pipeline (so a key distribution or session start found further
/// back re-drives the pending messages that waited for it), the position saved after each page.
/// One load per channel at a time.
struct OlderHistoryLoader: Sendable {
    let api: any ChatServerAPI
    let store: KeyStore
    let cursor: HistoryCursor
    /// Stores a page: the account's ingest (own echoes to the outbox, then the pipeline).
    let ingest: @Sendable ([ServerMessage], ChannelID) async throws -> Void

    /// Loads pages until at least `limit` messages entered the timeline or the start is reached.
    /// - Throws: ``ServerError``, key store errors.
    func load(channelID: ChannelID, limit: Int) async throws -> OlderHistory {
        let (api, store, cursor, ingest) = (api, store, cursor, ingest)
        return try await cursor.locks.withLock(HistoryCursor.lockKey(channelID) + ":older") {
            let start = try await cursor.start(channelID: channelID)
            guard !start.complete else { return OlderHistory(added: 0, reachedStart: true) }
            let from = start.position.map { ServerTimestamp(microseconds: $0.createdAt.microseconds) }
            var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(max(limit, 1), 100), from: from)
            var added = 0
            while added < max(limit, 1) {
                let page = try await pager.nextPage()
                guard let oldest = page.first else { break }
                let ids = page.map(\.id.rawValue)
                let known = try await store.knownMessageIDs(ids)
                try await ingest(page, channelID)
                let stored = try await store.receivedMessages(ids: ids.filter { !known.contains($0) })
                added += stored.values.filter { $0.facts.kind == .message }.count
                let position = TimelineCursor(createdAt: StoreTime(microseconds: oldest.createdAt.microseconds), messageID: oldest.id.rawValue)
                try await cursor.recordPaged(channelID: channelID, oldest: position, complete: pager.reachedStart)
            }
            if pager.reachedStart { try await cursor.recordPaged(channelID: channelID, oldest: nil, complete: true) }
            return OlderHistory(added: added, reachedStart: pager.reachedStart)
        }
    }
}
