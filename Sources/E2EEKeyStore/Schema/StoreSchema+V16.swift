import GRDB

extension StoreSchema {
    /// `v16`: what the send gate (docs/spec/protocol.md §3.13) still has to read, and when the
    /// keys were last renewed.
    ///
    /// - `unread_ranges`: per channel, the stretch of history a catch-up stopped short of at its
    ///   limit: everything older than `resume` (the oldest message read so far, server time in
    ///   microseconds and id) and newer than `below` (the channel's verified mark when the gap
    ///   opened; `NULL`: no mark, read down to what the store has or the start). The send gate's
    ///   scan reads it before this device's first send there and moves `resume` down as it reads,
    ///   so a scan cut short (a rate limit, a restart) goes on where it stopped; the row goes
    ///   when the range was read to its end or the keys were renewed.
    /// - `store_metadata.keys_renewed_at`: when the keys were last renewed after a rollback or a
    ///   gap too long to read (this device's clock); an unread gap too long to read renews them
    ///   again only when this store has encrypted something since.
    static func recordUnreadRanges(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE unread_ranges (
                channel_id TEXT PRIMARY KEY NOT NULL,
                below INTEGER,
                resume_created_at INTEGER NOT NULL,
                resume_message_id TEXT NOT NULL,
                updated_at INTEGER NOT NULL
            );
            ALTER TABLE store_metadata ADD COLUMN keys_renewed_at INTEGER;
            """)
    }
}
