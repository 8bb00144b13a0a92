import GRDB

extension StoreSchema {
    /// `v11`: what this device decided about a channel, kept apart from the
    /// server's listing so that no listing, 403 or leave can change it.
    ///
    /// - `channel_pins`: a channel's kind, fixed when this device first learns it (the creator
    ///   from its own request), and this device's standing in it: `created` (created or opened
    ///   here), `request` (learned, not accepted yet), `accepted`, `declined`. A listing that
    ///   contradicts the kind is recorded once in `contradicted_at`. No foreign key: the pin
    ///   outlives the channel's row.
    /// - `channel_member_standings`: per group, the users this device approved as members (at
    ///   creation, acceptance, or one by one), holds and declines; `missing_since` is when an
    ///   approved member was first read as absent (gone after a second read at least 2 s later).
    ///
    /// A store that sent before this version keeps what it had: its channels are pinned with the
    /// kind stored then — accepted, except a DM whose participants were never fixed, which is a
    /// request — and a group's members that received keys are approved.
    static func createChannelTrustTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channel_pins (
                channel_id TEXT PRIMARY KEY NOT NULL,
                is_dm INTEGER NOT NULL CHECK (is_dm IN (0, 1)),
                encryption_type TEXT NOT NULL
                    CHECK ((is_dm = 1 AND encryption_type = 'x3dh') OR (is_dm = 0 AND encryption_type = 'sender_keys')),
                standing TEXT NOT NULL CHECK (standing IN ('created', 'request', 'accepted', 'declined')),
                pinned_at INTEGER NOT NULL,
                contradicted_at INTEGER
            );
            CREATE TABLE channel_member_standings (
                channel_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('approved', 'held', 'declined', 'gone')),
                missing_since INTEGER,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, user_id)
            );
            INSERT INTO channel_pins (channel_id, is_dm, encryption_type, standing, pinned_at)
                SELECT id, is_dm, encryption_type,
                    CASE WHEN is_dm = 0 OR EXISTS (SELECT 1 FROM dm_participants p WHERE p.channel_id = channels.id)
                         THEN 'accepted' ELSE 'request' END,
                    created_at FROM channels
                WHERE (is_dm = 1 AND encryption_type = 'x3dh') OR (is_dm = 0 AND encryption_type = 'sender_keys');
            INSERT INTO channel_member_standings (channel_id, user_id, state, missing_since, updated_at)
                SELECT r.channel_id, r.user_id, 'approved', NULL, MAX(r.updated_at) FROM channel_recipients r
                JOIN channels c ON c.id = r.channel_id AND c.is_dm = 0
                WHERE r.state = 'recipient' GROUP BY r.channel_id, r.user_id;
            """)
    }
}
