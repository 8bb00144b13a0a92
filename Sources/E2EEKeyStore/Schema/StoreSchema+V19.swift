import GRDB

extension StoreSchema {
    /// `v19`: contacts' user keys (docs/spec/protocol.md §10, text 1.3 part 1). Public data only,
    /// stored in clear.
    ///
    /// - `contact_key_standings`: per contact user, `none`, `pinned` (with the key) or
    ///   `conflicted`; a due key change waiting for the app (`change_due_at` set; `change_to`
    ///   NULL is *no key*); when another listed key was last surfaced.
    /// - `contact_keys`: per (user, key), its state and what listings showed under it —
    ///   `max_epoch` (`E_max`), `seen_until`, `seen_at` — never lowered by a listing.
    /// - `device_links`: per (user, device), the last certificate verified for it and whether
    ///   it was linked when last judged (the `vouched` label and `deviceUnlinked` read it).
    /// - `known_devices.distrusted`: 1 once a user returned from a key to *no key*: the user
    ///   stays met, and their devices are held until approved again.
    /// - `store_metadata` gains the clock readings of §10.19 and when the store was last found
    ///   rolled back (unix seconds).
    static func recordContactKeys(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE contact_key_standings (
                user_id TEXT PRIMARY KEY NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('none', 'pinned', 'conflicted')),
                pinned_key BLOB CHECK (pinned_key IS NULL OR length(pinned_key) = 32),
                change_due_at INTEGER,
                change_to BLOB CHECK (change_to IS NULL OR length(change_to) = 32),
                change_vouched INTEGER NOT NULL DEFAULT 0 CHECK (change_vouched IN (0, 1)),
                change_was_verified INTEGER NOT NULL DEFAULT 0 CHECK (change_was_verified IN (0, 1)),
                other_key_surfaced_at INTEGER,
                CHECK ((state = 'pinned') = (pinned_key IS NOT NULL))
            );
            CREATE TABLE contact_keys (
                user_id TEXT NOT NULL,
                user_key BLOB NOT NULL CHECK (length(user_key) = 32),
                state TEXT NOT NULL CHECK (state IN ('listed', 'pinned', 'replaced', 'declined', 'verified')),
                max_epoch INTEGER NOT NULL,
                seen_until INTEGER NOT NULL,
                seen_at INTEGER NOT NULL,
                first_listed_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, user_key)
            ) WITHOUT ROWID;
            CREATE TABLE device_links (
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                user_key BLOB CHECK (user_key IS NULL OR length(user_key) = 32),
                epoch INTEGER NOT NULL,
                not_after INTEGER NOT NULL,
                linked INTEGER NOT NULL CHECK (linked IN (0, 1)),
                PRIMARY KEY (user_id, device_id)
            ) WITHOUT ROWID;
            ALTER TABLE store_metadata ADD COLUMN clock_mark INTEGER;
            ALTER TABLE store_metadata ADD COLUMN clock_latest_post INTEGER;
            ALTER TABLE store_metadata ADD COLUMN clock_agreed INTEGER;
            ALTER TABLE store_metadata ADD COLUMN clock_went_back INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE store_metadata ADD COLUMN clock_suspect INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE store_metadata ADD COLUMN clock_rolled_back_at INTEGER;
            ALTER TABLE known_devices ADD COLUMN distrusted INTEGER NOT NULL DEFAULT 0 CHECK (distrusted IN (0, 1));
            """)
    }
}
