import GRDB

extension StoreSchema {
    /// `v3`: what the sending side of the messaging layer keeps.
    /// - `channels`: the channels the account belongs to, with when their members were last read
    ///   (`members_fetched_at` NULL = stale: re-read before the next group send).
    /// - `channel_members`: the member list last read (`GET …/members` is the only source).
    /// - `sender_key_shares`: which device holds which of our sender keys (the key's SKD was
    ///   queued for it); a key's shares go with the key.
    /// - `outbox.kind`, `content_type`, `target_message_id`: messages, edits, deletes and SKDs
    ///   share the per-channel order of the outbox.
    static func createMessagingSendTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channels (
                id TEXT PRIMARY KEY,
                name TEXT,
                is_dm INTEGER NOT NULL CHECK (is_dm IN (0, 1)),
                encryption_type TEXT NOT NULL,
                created_by TEXT,
                created_at INTEGER NOT NULL,
                members_fetched_at INTEGER
            );
            CREATE TABLE channel_members (
                channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL,
                username TEXT NOT NULL,
                role TEXT NOT NULL,
                PRIMARY KEY (channel_id, user_id)
            );
            CREATE TABLE sender_key_shares (
                channel_id TEXT NOT NULL,
                key_id INTEGER NOT NULL,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                shared_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, key_id, device_id),
                FOREIGN KEY (channel_id, key_id) REFERENCES own_sender_keys(channel_id, key_id) ON DELETE CASCADE
            );
            ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'edit', 'delete', 'skd'));
            ALTER TABLE outbox ADD COLUMN content_type TEXT NOT NULL DEFAULT '';
            ALTER TABLE outbox ADD COLUMN target_message_id TEXT;
            """)
    }
}
