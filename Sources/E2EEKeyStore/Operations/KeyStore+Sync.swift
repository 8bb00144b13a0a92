import GRDB

extension KeyStore {
    /// Which of `ids` the store already knows: a timeline row (any state) or one of our own
    /// outbox entries the server acknowledged. The catch-up stops paging back at the first page
    /// holding one of them (docs/spec/sync.md guarantee 6).
    /// - Throws: GRDB's `DatabaseError`.
    package func knownMessageIDs(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await read { db in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let arguments = StatementArguments(ids + ids)
            return Set(try String.fetchAll(db, sql: """
                SELECT message_id FROM timeline WHERE message_id IN (\(marks))
                UNION SELECT server_message_id FROM outbox WHERE server_message_id IN (\(marks))
                """, arguments: arguments))
        }
    }

    /// The oldest `message` row of a channel's timeline, or `nil` when it has none: where
    /// paging older history starts when no sync cursor says otherwise.
    /// - Throws: GRDB's `DatabaseError`.
    package func oldestTimelineMessage(channelID: String) async throws -> TimelineCursor? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT created_at, message_id FROM timeline WHERE channel_id = ? AND kind = 'message'
                ORDER BY created_at, message_id LIMIT 1
                """, arguments: [channelID]) else { return nil }
            return TimelineCursor(createdAt: StoreTime(microseconds: row["created_at"]), messageID: row["message_id"])
        }
    }
}
