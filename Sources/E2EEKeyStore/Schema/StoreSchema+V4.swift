import GRDB

extension StoreSchema {
    /// `v4`: what the receiving side of the messaging layer keeps (edits, dedupe keys).
    ///
    /// - `timeline.kind`: `message` rows are the app's timeline; `control` rows (sender key
    ///   distributions, tombstones of deletes seen before their message) and `duplicate` rows
    ///   (a second server id for a message already shown) stay in the table as part of the
    ///   dedupe set but never appear in pages.
    /// - `timeline.edited_at`: when the sender last edited the message (µs), or NULL.
    /// - `timeline.duplicate_of`: for a `duplicate` row, the server id of the first copy.
    /// - `timeline.payload_id`: the payload's client message id (docs/spec/protocol.md §6); a used
    ///   (sender user, payload id) makes a later message a duplicate, enforced by a unique index.
    /// - `timeline_by_content`: per-channel lookup by content hash (same envelope bytes under
    ///   another server id; canonical base64 makes equal strings exactly equal bytes); replaced
    ///   in `v5` by a narrower index (``StoreSchema/narrowContentLookup(_:)``).
    /// - `refused_inputs`: edits and deletes that were refused, with a public reason.
    static func createMessagingReceiveTables(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE timeline ADD COLUMN kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'control', 'duplicate'));
            ALTER TABLE timeline ADD COLUMN edited_at INTEGER;
            ALTER TABLE timeline ADD COLUMN duplicate_of TEXT;
            ALTER TABLE timeline ADD COLUMN payload_id TEXT;
            CREATE UNIQUE INDEX timeline_payload_id ON timeline(sender_user_id, payload_id) WHERE payload_id IS NOT NULL;
            CREATE INDEX timeline_by_content ON timeline(channel_id, content_hash);
            CREATE TABLE refused_inputs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                channel_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                input_kind TEXT NOT NULL CHECK (input_kind IN ('edit', 'delete')),
                reason TEXT NOT NULL,
                content_hash BLOB CHECK (content_hash IS NULL OR length(content_hash) = 32),
                seen_at INTEGER NOT NULL
            );
            CREATE INDEX refused_inputs_by_message ON refused_inputs(message_id);
            """)
    }
}
