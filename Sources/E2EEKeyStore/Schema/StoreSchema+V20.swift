import GRDB

extension StoreSchema {
    /// `v20`: our own user's key (docs/spec/protocol.md §3 "State", text 1.3 part 2). Public data
    /// only, stored in clear; the user key's private half is never in the store (it lives in the
    /// primary file).
    ///
    /// - `own_user_key`: one row once the account has a key: this device's role (`primary`,
    ///   `linked`, `unlinked`), our pinned key, the primary's device id, this device's own
    ///   certificate, and the mirror of the primary file — its id, epoch, log count and trust
    ///   counter — which a file restored from an older copy falls behind (`restoredFile`); why
    ///   issuing stopped, if it did. No row: *no key*.
    /// - `legacy_own_devices`: own devices trusted under text 1.2 before the account had a key,
    ///   with the day they lapse (30 days after the key was created).
    static func recordOwnUserKey(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE own_user_key (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                role TEXT NOT NULL CHECK (role IN ('primary', 'linked', 'unlinked')),
                user_key BLOB CHECK (user_key IS NULL OR length(user_key) = 32),
                primary_device_id TEXT,
                certificate BLOB CHECK (certificate IS NULL OR length(certificate) = 104),
                file_id BLOB CHECK (file_id IS NULL OR length(file_id) = 16),
                epoch INTEGER NOT NULL DEFAULT 0 CHECK (epoch BETWEEN 0 AND 4294967295),
                log_count INTEGER NOT NULL DEFAULT 0 CHECK (log_count >= 0),
                trust_counter INTEGER NOT NULL DEFAULT 0 CHECK (trust_counter >= 0),
                issuing_stopped TEXT CHECK (issuing_stopped IS NULL OR issuing_stopped IN ('anotherHolder', 'restoredFile', 'fileMissing', 'resetElsewhere')),
                created_at INTEGER NOT NULL,
                CHECK (role != 'primary' OR (user_key IS NOT NULL AND file_id IS NOT NULL))
            );
            CREATE TABLE legacy_own_devices (
                device_id TEXT PRIMARY KEY NOT NULL,
                lapses_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
