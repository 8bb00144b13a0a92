import GRDB

/// What the timeline shows of our own messages before and after the server took them: the
/// unposted outbox entries of a channel (its local echoes, with their sealed plaintexts), and
/// which outbox entry posted each of our rows.
extension KeyStore {
    /// The `.message` entries of `channelID` not posted yet (`.queued`, `.sending` or `.failed`,
    /// no server id), in sending order, plaintexts opened. Tombstones and announcements are
    /// `.message` entries too: the caller tells them apart by their payload.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func unpostedMessages(channelID: String) async throws -> [OutboxMessage] {
        try await read { [self] db in
            try outboxStore.loadUnpostedMessages(channelID: channelID, db)
        }
    }

    /// The unposted `.message` entry with `localID` (as ``unpostedMessages(channelID:)``), or nil.
    /// - Throws: as ``unpostedMessages(channelID:)``.
    package func unpostedMessage(localID: String) async throws -> OutboxMessage? {
        try await read { [self] db in
            guard let entry = try outboxStore.loadOutboxMessage(localID: localID, db), entry.isUnpostedMessage else { return nil }
            return entry
        }
    }

    /// The outbox entries that posted `messageIDs` (our own messages), by server id: their
    /// local id and delivery state (`.sent` or `.delivered`); ids no entry posted are absent.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` for an unknown state, GRDB's `DatabaseError`.
    package func postingEntries(messageIDs: [String]) async throws -> [String: (localID: String, state: OutboxState)] {
        guard !messageIDs.isEmpty else { return [:] }
        return try await read { db in
            var entries: [String: (localID: String, state: OutboxState)] = [:]
            for start in stride(from: 0, to: messageIDs.count, by: 500) {
                let chunk = Array(messageIDs[start..<min(start + 500, messageIDs.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(db, sql: "SELECT server_message_id, local_id, state FROM outbox WHERE server_message_id IN (\(marks))",
                                            arguments: StatementArguments(chunk))
                for row in rows {
                    let id: String = try row.decode("server_message_id", table: "outbox")
                    entries[id] = (try row.decode("local_id", table: "outbox"), try row.decodeEnum("state", table: "outbox"))
                }
            }
            return entries
        }
    }
}

extension OutboxMessage {
    /// A `.message` entry the server has not taken: `.queued`, `.sending` or `.failed`, without a server id.
    package var isUnpostedMessage: Bool {
        kind == .message && serverMessageID == nil && (state == .queued || state == .sending || state == .failed)
    }
}

extension OutboxStore {
    /// The `.message` entries of `channelID` in `.queued`, `.sending` or `.failed`, without a
    /// server id, in sequence order.
    /// - Throws: as ``loadOutboxMessage(localID:_:)``.
    func loadUnpostedMessages(channelID: String, _ db: Database) throws -> [OutboxMessage] {
        try loadOutbox(states: [.queued, .sending, .failed], channelID: channelID, db).filter(\.isUnpostedMessage)
    }
}
