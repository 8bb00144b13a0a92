import GRDB

/// The dev server's SQLite schema, in memory or in a file.
enum DevDatabase {
    /// Opens (and migrates) the database.
    /// - Throws: GRDB's `DatabaseError` when the file cannot be opened or migrated.
    static func open(path: String?) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let queue = if let path { try DatabaseQueue(path: path, configuration: configuration) }
        else { try DatabaseQueue(configuration: configuration) }
        try migrator.migrate(queue)
        return queue
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY NOT NULL,
                    username TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    password_hash BLOB NOT NULL,
                    password_salt BLOB NOT NULL,
                    email TEXT,
                    display_name TEXT,
                    banned INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE refresh_tokens (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                );
                CREATE TABLE access_tokens (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    issued_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE TABLE ws_tickets (
                    ticket_hash BLOB PRIMARY KEY NOT NULL,
                    used INTEGER NOT NULL DEFAULT 0,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                );
                CREATE TABLE key_bundles (
                    device_id TEXT PRIMARY KEY NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    identity_key TEXT NOT NULL,
                    signed_pre_key TEXT NOT NULL,
                    signed_pre_key_signature TEXT NOT NULL
                );
                CREATE TABLE one_time_pre_keys (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id TEXT NOT NULL REFERENCES key_bundles(device_id) ON DELETE CASCADE,
                    key TEXT NOT NULL
                );
                CREATE TABLE channels (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT,
                    is_dm INTEGER NOT NULL,
                    encryption_type TEXT NOT NULL,
                    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE members (
                    channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL,
                    joined_at INTEGER NOT NULL,
                    PRIMARY KEY (channel_id, user_id)
                );
                CREATE TABLE sender_keys (
                    channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL,
                    sender_key_public TEXT NOT NULL,
                    chain_key TEXT NOT NULL,
                    message_number INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (channel_id, device_id)
                );
                CREATE TABLE x3dh_setups (
                    channel_id TEXT PRIMARY KEY NOT NULL,
                    body TEXT NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE TABLE messages (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                    sender_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                    sender_device_id TEXT,
                    content TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    protocol_version INTEGER NOT NULL,
                    reply_to_id TEXT,
                    edited_at INTEGER,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX messages_by_channel_time ON messages(channel_id, created_at);
                """)
        }
        migrator.registerMigration("v2: rotated refresh tokens") { db in
            // Marks refresh tokens issued by a refresh (the commit-lag quirk applies to them only).
            try db.execute(sql: "ALTER TABLE refresh_tokens ADD COLUMN issued_by_refresh INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v3: rows shown to one device") { db in
            // The device a ticket was issued to (its socket gets the events of rows shown only to
            // that device), and the one device a forged row is shown to (NULL: every member). Both
            // serve the `postAs … visibleTo:` fault; the reference server has neither.
            try db.execute(sql: """
                ALTER TABLE ws_tickets ADD COLUMN device_id TEXT;
                ALTER TABLE messages ADD COLUMN visible_to TEXT;
                """)
        }
        return migrator
    }
}
