import GRDB

/// The store's migrations, registered in order. A shipped migration is never edited: a change
/// to the schema is a new migration appended here.
///
/// - `v1`: every table (the rules — NOT NULL, UNIQUE, CHECK on states, foreign keys with
///   cascades — are in SQL).
/// - `v2`: the indexes the app's reads and the maintenance jobs use (timeline pages by
///   `(channel_id, created_at, message_id)`, states, due dates).
/// - `v3`: the messaging layer's sending side (``StoreSchema/createMessagingSendTables(_:)``).
/// - `v4`: the messaging layer's receiving side (``StoreSchema/createMessagingReceiveTables(_:)``).
/// - `v5`: the envelope-hash lookup on an 8-byte prefix (``StoreSchema/narrowContentLookup(_:)``).
/// - `v6`: who receives keys, per channel (``StoreSchema/createRecipientTables(_:)``).
/// - `v7`: the rollback mark (``StoreSchema/recordRollbacks(_:)``).
/// - `v8`: the outbox's count of answered failures (``StoreSchema/countAnsweredFailures(_:)``).
/// - `v9`: the channels this account left (``StoreSchema/recordDepartures(_:)``).
/// - `v10`: the mark of messages removed from the server (``StoreSchema/recordRemovalsFromServer(_:)``).
/// - `v11`: channel kinds pinned, requests and approved members
///   (``StoreSchema/createChannelTrustTables(_:)``).
/// - `v12`: tombstones, the sender's deletes (``StoreSchema/recordTombstones(_:)``).
/// - `v13`: the timeline's unused state index dropped (``StoreSchema/dropUnusedTimelineIndexes(_:)``).
/// - `v14`: the (sender user, payload id) rule keyed by a digest of the pair (``StoreSchema/keyPayloadUses(_:)``).
/// - `v15`: decisions in the order they were made, requests as shown (``StoreSchema/orderDecisions(_:)``).
/// - `v16`: the ranges a catch-up left unread, for the send gate's scan, and when keys were last
///   renewed (``StoreSchema/recordUnreadRanges(_:)``).
/// - `v17`: the certificate this device publishes in its signed prekey record
///   (``StoreSchema/recordPublishedCertificate(_:)``).
/// - `v18`: ratchet restarts asked by a refused message and done at a send, per remote device
///   (``StoreSchema/recordSessionRestarts(_:)``).
/// - `v19`: contacts' user keys, device links and the clock readings of text 1.3
///   (``StoreSchema/recordContactKeys(_:)``).
/// - `v20`: our own user's key, role and the mirror of the primary file
///   (``StoreSchema/recordOwnUserKey(_:)``).
/// - `v21`: stored certificates, provisional pins and transfer marks for the trust part of a link
///   transfer (``StoreSchema/recordTransferredTrust(_:)``).
/// - `v23`: durable link transfers, both ends (``StoreSchema/recordTransfers(_:)``).
/// - `v24`: transferred history rows, the primary's snapshot marks and change log, and texts a
///   later decryption replaced (``StoreSchema/recordHistoryTransfer(_:)``).
/// - `v25`: the dedupe indexes clustered by channel and by sender (``StoreSchema/clusterDedupeIndexes(_:)``).
/// - `v26`: when a device without a user key was told once to link, and the highest own epoch
///   seen (``StoreSchema/recordLinkSuggestion(_:)``).
/// - `v30`: the recert envelope a primary last posted to each kept device
///   (``StoreSchema/recordPostedRecerts(_:)``).
enum StoreSchema {
    /// Migration identifiers, oldest first.
    static let versions = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v23", "v24", "v25", "v26", "v30", "v31"]

    /// The migrator holding every migration.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try createTables(db) }
        migrator.registerMigration("v2") { db in try createIndexes(db) }
        migrator.registerMigration("v3") { db in try createMessagingSendTables(db) }
        migrator.registerMigration("v4") { db in try createMessagingReceiveTables(db) }
        migrator.registerMigration("v5") { db in try narrowContentLookup(db) }
        migrator.registerMigration("v6") { db in try createRecipientTables(db) }
        migrator.registerMigration("v7") { db in try recordRollbacks(db) }
        migrator.registerMigration("v8") { db in try countAnsweredFailures(db) }
        migrator.registerMigration("v9") { db in try recordDepartures(db) }
        migrator.registerMigration("v10") { db in try recordRemovalsFromServer(db) }
        migrator.registerMigration("v11") { db in try createChannelTrustTables(db) }
        migrator.registerMigration("v12") { db in try recordTombstones(db) }
        migrator.registerMigration("v13") { db in try dropUnusedTimelineIndexes(db) }
        migrator.registerMigration("v14") { db in try keyPayloadUses(db) }
        migrator.registerMigration("v15") { db in try orderDecisions(db) }
        migrator.registerMigration("v16") { db in try recordUnreadRanges(db) }
        migrator.registerMigration("v17") { db in try recordPublishedCertificate(db) }
        migrator.registerMigration("v18") { db in try recordSessionRestarts(db) }
        migrator.registerMigration("v19") { db in try recordContactKeys(db) }
        migrator.registerMigration("v20") { db in try recordOwnUserKey(db) }
        migrator.registerMigration("v21") { db in try recordTransferredTrust(db) }
        migrator.registerMigration("v23") { db in try recordTransfers(db) }
        migrator.registerMigration("v24") { db in try recordHistoryTransfer(db) }
        migrator.registerMigration("v25") { db in try clusterDedupeIndexes(db) }
        migrator.registerMigration("v26") { db in try recordLinkSuggestion(db) }
        migrator.registerMigration("v30") { db in try recordPostedRecerts(db) }
        migrator.registerMigration("v31") { db in try logHistoryChangesOnlyWhileMarked(db) }
        return migrator
    }

    private static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE store_metadata (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                key_source TEXT NOT NULL CHECK (key_source IN ('raw', 'passphrase')),
                kdf_salt BLOB,
                kdf_iterations INTEGER,
                kdf_memory_kib INTEGER,
                key_check BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                next_one_time_prekey_id INTEGER NOT NULL DEFAULT 1 CHECK (next_one_time_prekey_id BETWEEN 1 AND 4294967296),
                CHECK ((key_source = 'passphrase') = (kdf_salt IS NOT NULL AND kdf_iterations IS NOT NULL AND kdf_memory_kib IS NOT NULL))
            );
            CREATE TABLE account (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                server_url TEXT NOT NULL,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                access_token BLOB,
                refresh_token BLOB,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE identity_keys (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                identity_public BLOB NOT NULL CHECK (length(identity_public) = 32),
                identity_private BLOB NOT NULL,
                signing_public BLOB NOT NULL CHECK (length(signing_public) = 32),
                signing_private BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE signed_prekeys (
                id INTEGER PRIMARY KEY CHECK (id BETWEEN 0 AND 4294967295),
                public_key BLOB NOT NULL CHECK (length(public_key) = 32),
                private_key BLOB NOT NULL,
                signature BLOB NOT NULL CHECK (length(signature) = 64),
                is_current INTEGER NOT NULL CHECK (is_current IN (0, 1)),
                created_at INTEGER NOT NULL,
                retired_at INTEGER,
                CHECK ((is_current = 1) = (retired_at IS NULL))
            );
            CREATE UNIQUE INDEX signed_prekeys_one_current ON signed_prekeys(is_current) WHERE is_current = 1;
            CREATE TABLE one_time_prekeys (
                id INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 4294967295),
                public_key BLOB NOT NULL CHECK (length(public_key) = 32),
                private_key BLOB NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending_upload', 'published', 'consumed')),
                created_at INTEGER NOT NULL,
                consumed_at INTEGER,
                CHECK ((state = 'consumed') = (consumed_at IS NOT NULL))
            );
            CREATE TABLE accepted_ephemeral_keys (
                ephemeral_public BLOB PRIMARY KEY CHECK (length(ephemeral_public) = 32),
                signed_prekey_id INTEGER NOT NULL REFERENCES signed_prekeys(id) ON DELETE CASCADE,
                accepted_at INTEGER NOT NULL
            );
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                remote_user_id TEXT NOT NULL,
                remote_device_id TEXT NOT NULL,
                is_current INTEGER NOT NULL CHECK (is_current IN (0, 1)),
                state BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX sessions_one_current ON sessions(remote_user_id, remote_device_id) WHERE is_current = 1;
            CREATE INDEX sessions_by_device ON sessions(remote_user_id, remote_device_id, updated_at);
            CREATE TABLE own_sender_keys (
                channel_id TEXT NOT NULL,
                key_id INTEGER NOT NULL CHECK (key_id BETWEEN 0 AND 4294967295),
                state BLOB NOT NULL,
                is_current INTEGER NOT NULL CHECK (is_current IN (0, 1)),
                messages_sent INTEGER NOT NULL DEFAULT 0 CHECK (messages_sent >= 0),
                created_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, key_id)
            );
            CREATE UNIQUE INDEX own_sender_keys_one_current ON own_sender_keys(channel_id) WHERE is_current = 1;
            CREATE TABLE receiver_sender_keys (
                channel_id TEXT NOT NULL,
                sender_user_id TEXT NOT NULL,
                sender_device_id TEXT NOT NULL,
                key_id INTEGER NOT NULL CHECK (key_id BETWEEN 0 AND 4294967295),
                state BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, sender_device_id, key_id)
            );
            CREATE TABLE skipped_sender_keys (
                channel_id TEXT NOT NULL,
                sender_device_id TEXT NOT NULL,
                key_id INTEGER NOT NULL,
                iteration INTEGER NOT NULL CHECK (iteration BETWEEN 0 AND 4294967295),
                message_key BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, sender_device_id, key_id, iteration),
                FOREIGN KEY (channel_id, sender_device_id, key_id)
                    REFERENCES receiver_sender_keys(channel_id, sender_device_id, key_id) ON DELETE CASCADE
            );
            CREATE TABLE remote_identities (
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                identity_blob BLOB NOT NULL,
                first_seen_at INTEGER NOT NULL,
                verification TEXT NOT NULL CHECK (verification IN ('unverified', 'verified')),
                PRIMARY KEY (user_id, device_id)
            );
            CREATE TABLE identity_changes (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                previous_blob BLOB NOT NULL,
                new_blob BLOB NOT NULL,
                seen_at INTEGER NOT NULL,
                accepted INTEGER NOT NULL DEFAULT 0 CHECK (accepted IN (0, 1)),
                FOREIGN KEY (user_id, device_id) REFERENCES remote_identities(user_id, device_id) ON DELETE CASCADE
            );
            CREATE TABLE timeline (
                message_id TEXT PRIMARY KEY,
                channel_id TEXT NOT NULL,
                sender_user_id TEXT,
                sender_device_id TEXT,
                created_at INTEGER NOT NULL,
                content_hash BLOB NOT NULL CHECK (length(content_hash) = 32),
                state TEXT NOT NULL CHECK (state IN ('pending_key', 'decrypted', 'undecryptable', 'unencrypted', 'deleted')),
                failure_reason TEXT,
                plaintext BLOB,
                is_own INTEGER NOT NULL DEFAULT 0 CHECK (is_own IN (0, 1)),
                CHECK ((state = 'undecryptable') = (failure_reason IS NOT NULL)),
                CHECK (state IN ('decrypted', 'unencrypted') OR plaintext IS NULL)
            );
            CREATE TABLE pending_ciphertexts (
                message_id TEXT PRIMARY KEY REFERENCES timeline(message_id) ON DELETE CASCADE,
                channel_id TEXT NOT NULL,
                sender_device_id TEXT,
                content TEXT NOT NULL,
                waiting_for TEXT NOT NULL,
                received_at INTEGER NOT NULL
            );
            CREATE TABLE outbox (
                local_id TEXT PRIMARY KEY,
                channel_id TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                content TEXT NOT NULL,
                content_hash BLOB NOT NULL CHECK (length(content_hash) = 32),
                plaintext BLOB NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                last_error TEXT,
                server_message_id TEXT UNIQUE,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                UNIQUE (channel_id, sequence),
                CHECK ((state IN ('sent', 'delivered')) = (server_message_id IS NOT NULL))
            );
            CREATE TABLE sync_cursors (
                channel_id TEXT PRIMARY KEY,
                newest_created_at INTEGER,
                newest_message_id TEXT,
                oldest_created_at INTEGER,
                oldest_message_id TEXT,
                history_complete INTEGER NOT NULL DEFAULT 0 CHECK (history_complete IN (0, 1)),
                updated_at INTEGER NOT NULL,
                CHECK ((newest_created_at IS NULL) = (newest_message_id IS NULL)),
                CHECK ((oldest_created_at IS NULL) = (oldest_message_id IS NULL))
            );
            """)
    }

    private static func createIndexes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX timeline_page ON timeline(channel_id, created_at, message_id);
            CREATE INDEX timeline_state ON timeline(channel_id, state);
            CREATE INDEX pending_by_sender ON pending_ciphertexts(channel_id, sender_device_id, received_at);
            CREATE INDEX outbox_by_state ON outbox(state, channel_id, sequence);
            CREATE INDEX one_time_prekeys_by_state ON one_time_prekeys(state, consumed_at);
            CREATE INDEX receiver_sender_keys_by_age ON receiver_sender_keys(updated_at);
            """)
    }
}
