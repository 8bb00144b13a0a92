import GRDB

extension StoreSchema {
    /// `v15`: decisions kept in the order they were made, and requests as the app was shown them.
    ///
    /// - `channel_member_standings.decided_at` and `channel_recipients.decided_at`: when the
    ///   decision that set an approved or declined standing was made, in the decider's
    ///   milliseconds — the signed `ts` of the announcement that carried it, or this device's
    ///   clock for its own decision (docs/spec/protocol.md §5.15). An announcement older than the
    ///   decision already applied is ignored, so a server that shows decisions out of order
    ///   cannot bring back an approval a later decline replaced. `NULL`: set before `v15`, or by
    ///   the comparison (a hold at discovery is no decision): any decision may follow it.
    /// - `known_devices.unconfirmed`: 1 for a device of our own user that the login's listing
    ///   named and the app has not confirmed yet (docs/spec/protocol.md §5.12): trusted with keys
    ///   on first use as before, but no decision of its (announcement, `with`, tombstone) counts
    ///   here until the user confirms the listing. 0 for every device known before `v15`.
    /// - `pending_ciphertexts.content_bytes` and `pending_by_wait`: the size of each waiting
    ///   envelope, indexed by what it waits for, so that the bytes waiting for a request's
    ///   acceptance are summed from the index alone (``ProtocolLimits/maxRequestPendingBytes``).
    ///   `NULL` for rows queued before `v15` (counted as nothing).
    /// - `request_views`: per request, what ``KeyStore`` last returned to the app to show — the
    ///   DM's candidate or the group's listed members (a JSON array of user ids) — so that
    ///   acceptance takes what the user saw, not what the server lists a moment later.
    static func orderDecisions(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE channel_member_standings ADD COLUMN decided_at INTEGER;
            ALTER TABLE channel_recipients ADD COLUMN decided_at INTEGER;
            ALTER TABLE pending_ciphertexts ADD COLUMN content_bytes INTEGER;
            CREATE INDEX pending_by_wait ON pending_ciphertexts(waiting_for, content_bytes);
            ALTER TABLE known_devices ADD COLUMN unconfirmed INTEGER NOT NULL DEFAULT 0 CHECK (unconfirmed IN (0, 1));
            CREATE TABLE request_views (
                channel_id TEXT PRIMARY KEY NOT NULL,
                candidate TEXT,
                members TEXT NOT NULL,
                shown_at INTEGER NOT NULL
            );
            """)
    }
}
