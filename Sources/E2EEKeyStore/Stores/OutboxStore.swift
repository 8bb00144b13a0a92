import E2EECrypto
import Foundation
import GRDB

/// Outgoing messages: the exact content to (re)send, the sealed plaintext, and the delivery
/// state, sent per channel in `sequence` order.
package struct OutboxStore: Sendable {
    static let table = "outbox"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// Adds a queued message with the channel's next sequence number; returns the stored row.
    /// - Throws: GRDB's `DatabaseError` (for instance a duplicate local id).
    public func enqueue(localID: String, channelID: String, content: String, plaintext: SecretBytes, at time: StoreTime,
                        kind: OutboxKind = .message, contentType: String = "", targetMessageID: String? = nil, _ db: Database) throws -> OutboxMessage {
        let sequence = Int64(try db.count("SELECT COALESCE(MAX(sequence), 0) + 1 FROM outbox WHERE channel_id = ?", [channelID]))
        let hash = SHA256.hash(utf8: content)
        try db.run(
            """
            INSERT INTO outbox (local_id, channel_id, sequence, content, content_hash, plaintext, state, created_at, updated_at,
                kind, content_type, target_message_id) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)
            """,
            [localID, channelID, sequence, content, Data(hash),
             try sealer.seal(plaintext, table: Self.table, column: "plaintext", rowID: localID), time.microseconds, time.microseconds,
             kind.rawValue, contentType, targetMessageID]
        )
        return OutboxMessage(localID: localID, channelID: channelID, sequence: sequence, content: content, contentHash: hash, plaintext: plaintext,
                             state: .queued, attempts: 0, lastError: nil, serverMessageID: nil, createdAt: time, updatedAt: time,
                             kind: kind, contentType: contentType, targetMessageID: targetMessageID)
    }

    /// The message with `localID`.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadOutboxMessage(localID: String, _ db: Database) throws -> OutboxMessage? {
        try db.row("SELECT * FROM outbox WHERE local_id = ?", [localID]).map(decode)
    }

    /// The message the server knows as `serverMessageID`.
    /// - Throws: as ``loadOutboxMessage(localID:_:)``.
    public func loadOutboxMessage(serverMessageID: String, _ db: Database) throws -> OutboxMessage? {
        try db.row("SELECT * FROM outbox WHERE server_message_id = ?", [serverMessageID]).map(decode)
    }

    /// Messages in `states`, in channel and sequence order.
    /// - Throws: as ``loadOutboxMessage(localID:_:)``.
    public func loadOutbox(states: Set<OutboxState>, _ db: Database) throws -> [OutboxMessage] {
        let wanted = states.map(\.rawValue).sorted()
        guard !wanted.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: wanted.count).joined(separator: ", ")
        return try db.rows("SELECT * FROM outbox WHERE state IN (\(marks)) ORDER BY channel_id, sequence", StatementArguments(wanted)).map(decode)
    }

    /// Messages of `channelID` in `states`, in sequence order.
    /// - Throws: as ``loadOutboxMessage(localID:_:)``.
    public func loadOutbox(states: Set<OutboxState>, channelID: String, _ db: Database) throws -> [OutboxMessage] {
        let wanted = states.map(\.rawValue).sorted()
        guard !wanted.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: wanted.count).joined(separator: ", ")
        return try db.rows("SELECT * FROM outbox WHERE state IN (\(marks)) AND channel_id = ? ORDER BY sequence",
                           StatementArguments(wanted + [channelID])).map(decode)
    }

    /// Messages of `channelID` whose content hashes to `contentHash` (any state), in sequence
    /// order: how an own message seen on the server is matched without reading the whole outbox.
    /// - Throws: as ``loadOutboxMessage(localID:_:)``.
    public func loadOutbox(channelID: String, contentHash: [UInt8], _ db: Database) throws -> [OutboxMessage] {
        try db.rows("SELECT * FROM outbox WHERE channel_id = ? AND content_hash = ? ORDER BY sequence",
                    [channelID, Data(contentHash)]).map(decode)
    }

    /// Moves a message from one of `from` to `to`, recording what the transition carries.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    func transition(localID: String, from: Set<OutboxState>, to: OutboxState, serverMessageID: String? = nil,
                    error: String? = nil, countAttempt: Bool = false, at time: StoreTime, _ db: Database) throws {
        guard let row = try db.row("SELECT state FROM outbox WHERE local_id = ?", [localID]) else {
            throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
        }
        let current: OutboxState = try row.decodeEnum("state", table: Self.table)
        guard from.contains(current) else {
            throw KeyStoreError.invalidTransition(.outboxMessage, id: localID, from: current.rawValue, to: to.rawValue)
        }
        try db.run(
            """
            UPDATE outbox SET state = ?, server_message_id = COALESCE(?, server_message_id), last_error = ?,
                attempts = attempts + ?, updated_at = ? WHERE local_id = ?
            """,
            [to.rawValue, serverMessageID, error, countAttempt ? 1 : 0, time.microseconds, localID]
        )
    }

    /// Removes a message (for instance once delivered and no longer needed).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeOutboxMessage(localID: String, _ db: Database) throws {
        try db.run("DELETE FROM outbox WHERE local_id = ?", [localID])
    }

    private func decode(_ row: Row) throws -> OutboxMessage {
        let t = Self.table
        let localID: String = try row.decode("local_id", table: t)
        let hash: Data = try row.decode("content_hash", table: t)
        let attempts: Int64 = try row.decode("attempts", table: t)
        let answeredFailures: Int64 = try row.decode("answered_failures", table: t)
        return OutboxMessage(
            localID: localID, channelID: try row.decode("channel_id", table: t), sequence: try row.decode("sequence", table: t),
            content: try row.decode("content", table: t), contentHash: [UInt8](hash),
            plaintext: try sealer.open(try row.decode("plaintext", table: t), table: t, column: "plaintext", rowID: localID),
            state: try row.decodeEnum("state", table: t), attempts: Int(clamping: attempts),
            lastError: try row.decodeIfPresent("last_error", table: t), serverMessageID: try row.decodeIfPresent("server_message_id", table: t),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)),
            updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t)),
            kind: try row.decodeEnum("kind", table: t), contentType: try row.decode("content_type", table: t),
            targetMessageID: try row.decodeIfPresent("target_message_id", table: t),
            answeredFailures: Int(clamping: answeredFailures)
        )
    }
}
