import E2EECrypto
import Foundation
import GRDB

/// The timeline: one row per server message id (the persisted dedupe set), ordered by
/// `(created_at, message_id)`, with the plaintext cache sealed per row.
package struct TimelineStore: Sendable {
    static let table = "timeline"
    /// The columns `decode` reads, in this order.
    static let columns = "message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, failure_reason, plaintext, is_own"
    static let byIDSQL = "SELECT \(columns) FROM timeline WHERE message_id = ?"
    // Only `message` rows: `control` and `duplicate` rows (schema v4) are part of the dedupe
    // set, never of the timeline.
    static let pageBeforeSQL = """
        SELECT \(columns) FROM timeline WHERE channel_id = ? AND kind = 'message' AND (created_at, message_id) < (?, ?)
        ORDER BY created_at DESC, message_id DESC LIMIT ?
        """
    static let newestPageSQL = """
        SELECT \(columns) FROM timeline WHERE channel_id = ? AND kind = 'message' ORDER BY created_at DESC, message_id DESC LIMIT ?
        """
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// `true` when the server id is already in the timeline (a duplicate).
    /// - Throws: GRDB's `DatabaseError`.
    public func containsMessage(id: String, _ db: Database) throws -> Bool {
        try db.count("SELECT COUNT(*) FROM timeline WHERE message_id = ?", [id]) > 0
    }

    /// The message with the server id `id`.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadMessage(id: String, _ db: Database) throws -> TimelineMessage? {
        try db.row(Self.byIDSQL, [id]).map(decode)
    }

    /// The state of the message with server id `id`.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadState(id: String, _ db: Database) throws -> TimelineState? {
        guard let row = try db.row("SELECT state, failure_reason FROM timeline WHERE message_id = ?", [id]) else { return nil }
        let text: String = try row.decode(at: 0, column: "state", table: Self.table)
        let reason: String? = try row.decodeIfPresent(at: 1, column: "failure_reason", table: Self.table)
        guard let state = TimelineState.from(column: text, reason: reason) else { throw KeyStoreError.corruptColumn(table: Self.table, column: "state") }
        return state
    }

    /// Inserts the message, or replaces the row with the same server id — except a `.deleted`
    /// row, which stays deleted (a late copy never brings back a deleted message's plaintext).
    /// - Throws: GRDB's `DatabaseError` (for instance a content hash that is not 32 bytes).
    public func storeMessage(_ message: TimelineMessage, _ db: Database) throws {
        let plaintext = try sealer.sealIfPresent(message.plaintext, table: Self.table, column: "plaintext", rowID: message.messageID)
        try db.run(
            """
            INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, failure_reason, plaintext, is_own)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (message_id) DO UPDATE SET
                channel_id = excluded.channel_id, sender_user_id = excluded.sender_user_id, sender_device_id = excluded.sender_device_id,
                created_at = excluded.created_at, content_hash = excluded.content_hash, state = excluded.state,
                failure_reason = excluded.failure_reason, plaintext = excluded.plaintext, is_own = excluded.is_own
            WHERE timeline.state != 'deleted'
            """,
            [message.messageID, message.channelID, message.senderUserID, message.senderDeviceID, message.createdAt.microseconds,
             Data(message.contentHash), message.state.columnValue, message.state.reason, plaintext, message.isOwn ? 1 : 0]
        )
    }

    /// Marks a message deleted and wipes its plaintext (secure_delete clears the freed bytes).
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown id.
    public func markDeleted(id: String, _ db: Database) throws {
        try db.run("UPDATE timeline SET state = 'deleted', failure_reason = NULL, plaintext = NULL WHERE message_id = ?", [id])
        guard db.changesCount == 1 else { throw KeyStoreError.missingRecord(.timelineMessage, id: id) }
    }

    /// Up to `limit` messages of `channelID` strictly before `cursor` (or the newest ones when
    /// `cursor` is nil), returned oldest → newest.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadPage(channelID: String, before cursor: TimelineCursor?, limit: Int, _ db: Database) throws -> [TimelineMessage] {
        guard limit > 0 else { return [] }
        let rows: [Row]
        if let cursor {
            rows = try db.rows(
                Self.pageBeforeSQL,
                [channelID, cursor.createdAt.microseconds, cursor.messageID, limit])
        } else {
            rows = try db.rows(Self.newestPageSQL, [channelID, limit])
        }
        return try rows.reversed().map(decode)
    }

    /// How many messages `channelID` holds, in `state` when given (matching on the state's kind;
    /// an `.undecryptable` reason is ignored).
    /// - Throws: GRDB's `DatabaseError`.
    public func countMessages(channelID: String, state: TimelineState? = nil, _ db: Database) throws -> Int {
        if let state {
            return try db.count("SELECT COUNT(*) FROM timeline WHERE channel_id = ? AND state = ? AND kind = 'message'", [channelID, state.columnValue])
        }
        return try db.count("SELECT COUNT(*) FROM timeline WHERE channel_id = ? AND kind = 'message'", [channelID])
    }

    private func decode(_ row: Row) throws -> TimelineMessage {
        let t = Self.table
        let id: String = try row.decode(at: 0, column: "message_id", table: t)
        let stateText: String = try row.decode(at: 6, column: "state", table: t)
        let reason: String? = try row.decodeIfPresent(at: 7, column: "failure_reason", table: t)
        guard let state = TimelineState.from(column: stateText, reason: reason) else { throw KeyStoreError.corruptColumn(table: t, column: "state") }
        let hash: Data = try row.decode(at: 5, column: "content_hash", table: t)
        let isOwn: Int64 = try row.decode(at: 9, column: "is_own", table: t)
        let sealed: Data? = try row.decodeIfPresent(at: 8, column: "plaintext", table: t)
        return TimelineMessage(
            messageID: id, channelID: try row.decode(at: 1, column: "channel_id", table: t),
            senderUserID: try row.decodeIfPresent(at: 2, column: "sender_user_id", table: t),
            senderDeviceID: try row.decodeIfPresent(at: 3, column: "sender_device_id", table: t),
            createdAt: StoreTime(microseconds: try row.decode(at: 4, column: "created_at", table: t)), contentHash: [UInt8](hash), state: state,
            plaintext: try sealer.openIfPresent(sealed, table: t, column: "plaintext", rowID: id),
            isOwn: isOwn == 1
        )
    }
}
