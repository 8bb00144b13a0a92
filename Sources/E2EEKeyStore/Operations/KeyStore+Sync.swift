import GRDB

extension KeyStore {
    /// Which of `ids` the store already knows: a timeline row (any state) or one of our own
    /// outbox entries the server acknowledged. The catch-up stops paging back at the first page
    /// holding one of them (SYNC.md guarantee 6).
    /// - Throws: GRDB's `DatabaseError`.
    public func knownMessageIDs(_ ids: [String]) async throws -> Set<String> {
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
}
