import Foundation
import GRDB

/// Ciphertexts waiting for a key. Each has a timeline row in state `.pendingKey` (and goes with
/// it, by cascade), or one parked as undecryptable because it was sent after this device left
/// its channel (kept so its key could still open it; never counted or re-driven as pending).
/// The content is an envelope already public on the server: not sealed.
package struct PendingCiphertextStore: Sendable {
    static let table = "pending_ciphertexts"

    /// A store.
    public init() {}

    /// Adds (or replaces) a pending ciphertext; its timeline row must exist.
    /// - Throws: GRDB's `DatabaseError` (a foreign-key failure without a timeline row).
    public func storePending(_ pending: PendingCiphertext, _ db: Database) throws {
        try db.run(
            """
            INSERT OR REPLACE INTO pending_ciphertexts (message_id, channel_id, sender_device_id, content, waiting_for, received_at, content_bytes)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [pending.messageID, pending.channelID, pending.senderDeviceID, pending.content, pending.waitingFor, pending.receivedAt.microseconds,
             pending.content.utf8.count]
        )
    }

    /// Envelope bytes waiting for `waitingFor`, other than `messageID`'s (summed from
    /// `pending_by_wait` alone).
    /// - Throws: GRDB's `DatabaseError`.
    public func waitingBytes(for waitingFor: String, excluding messageID: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(content_bytes), 0) FROM pending_ciphertexts WHERE waiting_for = ? AND message_id != ?",
                         arguments: [waitingFor, messageID]) ?? 0
    }

    /// Removes the pending row of `messageID` (no error when absent).
    /// - Throws: GRDB's `DatabaseError`.
    public func removePending(messageID: String, _ db: Database) throws {
        try db.run("DELETE FROM pending_ciphertexts WHERE message_id = ?", [messageID])
    }

    /// The ciphertexts waiting for `waitingFor` (all of them when nil), oldest first.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadPending(waitingFor: String? = nil, _ db: Database) throws -> [PendingCiphertext] {
        let rows = try waitingFor.map { try db.rows("SELECT * FROM pending_ciphertexts WHERE waiting_for = ? ORDER BY received_at, message_id", [$0]) }
            ?? db.rows("SELECT * FROM pending_ciphertexts ORDER BY received_at, message_id")
        let t = Self.table
        return try rows.map { row in
            PendingCiphertext(messageID: try row.decode("message_id", table: t), channelID: try row.decode("channel_id", table: t),
                              senderDeviceID: try row.decodeIfPresent("sender_device_id", table: t), content: try row.decode("content", table: t),
                              waitingFor: try row.decode("waiting_for", table: t),
                              receivedAt: StoreTime(microseconds: try row.decode("received_at", table: t)))
        }
    }

    /// Whether any ciphertext is pending.
    /// - Throws: GRDB's `DatabaseError`.
    public func hasPending(_ db: Database) throws -> Bool {
        try db.count("SELECT EXISTS (SELECT 1 FROM pending_ciphertexts)") == 1
    }

    /// How many ciphertexts are pending (parked ones not counted).
    /// - Throws: GRDB's `DatabaseError`.
    public func countPending(_ db: Database) throws -> Int {
        try db.count(Self.countSQL)
    }

    /// The count: the queue is walked and each row's timeline row looked up by its key.
    /// `CROSS JOIN` keeps that order: without statistics SQLite would rather scan the whole
    /// timeline for `pending_key` rows (there is no index on the state alone).
    static let countSQL = """
        SELECT COUNT(*) FROM pending_ciphertexts p CROSS JOIN timeline t ON t.message_id = p.message_id WHERE t.state = 'pending_key'
        """
}
