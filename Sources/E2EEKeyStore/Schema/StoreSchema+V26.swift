import GRDB

extension StoreSchema {
    /// `v26`, our own devices under our key (docs/spec/protocol.md §10.25):
    /// - `store_metadata.link_suggested_at`: when this device, with no user key of its own, was
    ///   told once to link (`linkSuggested`), unix seconds, `NULL` until then — once per store,
    ///   not once per launch;
    /// - `own_user_key.highest_epoch`: the highest epoch this device saw under our key in our own
    ///   listing, never lowered while the row lasts, so a replayed earlier epoch links no device
    ///   the primary removed;
    /// - `history_marks.lower_bound`: the oldest `created_at` (µs) a transfer's history covers, so
    ///   its phase 2 reads the changes in the same window after a restart (`NULL`: no history).
    static func recordLinkSuggestion(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE store_metadata ADD COLUMN link_suggested_at INTEGER;
            ALTER TABLE history_marks ADD COLUMN lower_bound INTEGER;
            ALTER TABLE own_user_key ADD COLUMN highest_epoch INTEGER NOT NULL DEFAULT 0 CHECK (highest_epoch BETWEEN 0 AND 4294967295);
            """)
    }
}
