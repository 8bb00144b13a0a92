import GRDB

extension StoreSchema {
    /// `v12` (only the sender deletes): `timeline.delete_of`.
    ///
    /// A tombstone is a `control` row whose decrypted payload names, in `delete_of`, the payload
    /// id of a message of the same sender user in the same channel (docs/spec/protocol.md §6.7).
    /// It is set only on tombstones from a device this device trusts, so a stored tombstone
    /// erases its message whenever that message is stored, before or after it. The partial
    /// index holds tombstones only: a received message costs one probe of a small index.
    static func recordTombstones(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE timeline ADD COLUMN delete_of TEXT;
            CREATE INDEX timeline_tombstones ON timeline(channel_id, sender_user_id, delete_of) WHERE delete_of IS NOT NULL;
            """)
    }
}
