import GRDB

/// One row of the `messages` table, as a value: what a post stores, what a held post waits
/// with, and what a repost copies.
struct StoredMessage: Sendable, Equatable {
    var id: String
    var channelID: String
    var senderID: String?
    var senderDeviceID: String?
    var content: String
    var contentType: String
    var protocolVersion: Int
    var replyToID: String?
    var createdAt: Int64
    /// The one device whose pages and events show the row, or `nil` for every member (only
    /// ``FaultInjector/postAs(userID:deviceID:channelID:contentType:content:visibleTo:protocolVersion:)``
    /// sets it; the reference server has no such column).
    var visibleTo: String?

    /// The row in the shape ``Representation/message(_:suffix:replyTo:)`` reads (not yet edited).
    var row: Row {
        Row([
            "id": id, "channel_id": channelID, "sender_id": senderID, "sender_device_id": senderDeviceID,
            "content": content, "content_type": contentType, "protocol_version": protocolVersion,
            "reply_to_id": replyToID, "edited_at": nil, "created_at": createdAt,
        ])
    }

    /// Inserts the row.
    /// - Throws: GRDB's `DatabaseError` (a foreign key: an unknown channel or sender user).
    func insert(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO messages (id, channel_id, sender_id, sender_device_id, content, content_type, protocol_version,
                                  reply_to_id, created_at, visible_to)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, channelID, senderID, senderDeviceID, content, contentType, protocolVersion, replyToID, createdAt, visibleTo])
    }

    /// The stored row with `id` (its current content if edited), or `nil`.
    /// - Throws: GRDB's `DatabaseError`.
    static func fetch(_ db: Database, id: String) throws -> StoredMessage? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE id = ?", arguments: [id]) else { return nil }
        return StoredMessage(
            id: row["id"], channelID: row["channel_id"], senderID: row["sender_id"], senderDeviceID: row["sender_device_id"],
            content: row["content"], contentType: row["content_type"], protocolVersion: row["protocol_version"],
            replyToID: row["reply_to_id"], createdAt: row["created_at"], visibleTo: row["visible_to"]
        )
    }

    /// The `created_at` of a new row of `channelID`: `now`, or — with a tie run length (the
    /// tied-timestamps quirk or fault) — the previous message's time while its run is shorter
    /// than `tieRun`. Without one, strictly after the previous message.
    /// - Throws: GRDB's `DatabaseError`.
    static func nextCreatedAt(_ db: Database, channelID: String, now: Int64, tieRun: Int?) throws -> Int64 {
        guard let last = try Int64.fetchOne(db, sql: "SELECT MAX(created_at) FROM messages WHERE channel_id = ?", arguments: [channelID])
        else { return now }
        if let tieRun {
            let run = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE channel_id = ? AND created_at = ?", arguments: [channelID, last]) ?? 0
            if run < tieRun { return last }
        }
        return max(now, last + 1)
    }
}
