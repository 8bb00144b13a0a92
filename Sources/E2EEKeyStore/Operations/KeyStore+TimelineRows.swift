import GRDB

/// What a timeline row shows besides the message itself: the delivery state of our own
/// messages, and when this device was set up (to tell history from before it).
extension KeyStore {
    /// The delivery state of the outbox entries that posted `messageIDs` (our own messages),
    /// by server id. Only posted entries have a server id, so every state is `.sent` or
    /// `.delivered`; ids no entry posted are absent.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` for an unknown state, GRDB's `DatabaseError`.
    package func deliveryStates(messageIDs: [String]) async throws -> [String: OutboxState] {
        guard !messageIDs.isEmpty else { return [:] }
        return try await read { db in
            var states: [String: OutboxState] = [:]
            for start in stride(from: 0, to: messageIDs.count, by: 500) {
                let chunk = Array(messageIDs[start..<min(start + 500, messageIDs.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(db, sql: "SELECT server_message_id, state FROM outbox WHERE server_message_id IN (\(marks))",
                                            arguments: StatementArguments(chunk))
                for row in rows {
                    let id: String = try row.decode("server_message_id", table: "outbox")
                    states[id] = try row.decodeEnum("state", table: "outbox") as OutboxState
                }
            }
            return states
        }
    }

    /// When this device was set up: the store time its identity key pair was created, right
    /// after it registered or logged in (`nil` before). Read without opening the sealed keys.
    /// - Throws: GRDB's `DatabaseError`.
    package func deviceSetUpAt() async throws -> StoreTime? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT created_at FROM identity_keys WHERE id = 1").map { StoreTime(microseconds: $0) }
        }
    }
}
