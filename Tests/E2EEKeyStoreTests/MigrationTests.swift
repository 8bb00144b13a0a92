import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

@Suite struct MigrationTests {
    /// The applied migrations in registration order (identifiers do not sort as text:
    /// "v10-…" would come before "v2").
    private func appliedMigrations(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let applied = try queue.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
        return StoreSchema.versions.filter(applied.contains) + applied.subtracting(StoreSchema.versions).sorted()
    }

    @Test func emptyFileGetsEveryMigration() throws {
        let dir = try TemporaryDirectory()
        try KeyStore.open(at: dir.storeURL, key: .random()).close()
        #expect(try appliedMigrations(dir.storeURL.path) == StoreSchema.versions)
    }

    @Test func interruptedCreationWithoutMetadataIsCompletedOnOpen() async throws {
        // Tables made but the metadata row never written (a crash during creation): nothing
        // secret can be in the file yet, so the open finishes creating it.
        let dir = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: dir.storeURL.path)
        try StoreSchema.migrator.migrate(queue, upTo: "v1")
        try queue.close()
        let key = StoreKey.random()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        try await store.storeAccount(AccountRecord(serverURL: "s", userID: "u", deviceID: "d", accessToken: nil, refreshToken: nil, updatedAt: Fixtures.time(1)))
        try store.close()
        #expect(try appliedMigrations(dir.storeURL.path) == StoreSchema.versions)
        #expect(throws: KeyStoreError.wrongKey) { try KeyStore.open(at: dir.storeURL, key: .random()) }
    }

    /// For each older version: build a file at that version with data in it, open it with the
    /// current code, and check it migrated with the data intact.
    @Test(arguments: StoreSchema.versions.dropLast())
    func fileAtOlderVersionMigratesWithItsData(version: String) async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let sealer = Sealer(key: key)
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: version)
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
            try TimelineStore(sealer: sealer).storeMessage(Fixtures.message("m1", at: 10, plaintext: "kept across migrations"), db)
            try SessionStore(sealer: sealer).installSession(userID: "u", deviceID: "d", state: Fixtures.secret("session"), id: "s1", at: Fixtures.time(1), db)
        }
        try queue.close()
        #expect(try appliedMigrations(dir.storeURL.path) != StoreSchema.versions)

        let store = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(Fixtures.text(try await store.message(id: "m1")?.plaintext) == "kept across migrations")
        let session = try await store.read { db in try store.sessionStore.loadCurrentSession(userID: "u", deviceID: "d", db) }
        #expect(Fixtures.text(session?.state) == "session")
        let hasPageIndex = try await store.read { db in try db.indexes(on: "timeline").contains { $0.name == "timeline_page" } }
        #expect(hasPageIndex)
        try store.close()
        #expect(try appliedMigrations(dir.storeURL.path) == StoreSchema.versions)
    }

    /// `v31`: the history change log's triggers stay only on a store with an open mark.
    @Test(arguments: [false, true])
    func v31KeepsTheHistoryLogTriggersOnlyWhileAMarkIsOpen(markOpen: Bool) async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v30")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: Sealer(key: key), now: 1)
            if markOpen {
                try db.execute(sql: "INSERT INTO history_marks (transfer_id, change_seq, taken_at) VALUES ('t', 0, 1)")
            }
        }
        let before = try await queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        #expect(before == ["history_change_insert", "history_change_update", "history_replaced"])
        try queue.close()

        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let after = try await store.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        #expect(after == (markOpen ? before : ["history_replaced"]))
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("arrival", at: 10, plaintext: "logged or not"))])
        #expect(try await store.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == (markOpen ? 1 : 0))
        try store.close()
    }

    @Test func v13DropsTheStateIndexAndAFailureLeavesTheFileAtV12() async throws {
        let key = StoreKey.random()
        func storeAtV12(_ dir: TemporaryDirectory) async throws {
            let sealer = Sealer(key: key)
            let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
            try StoreSchema.migrator.migrate(queue, upTo: "v12")
            try await queue.write { db in
                try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
                try TimelineStore(sealer: sealer).storeMessage(Fixtures.message("m1", at: 10, plaintext: "kept"), db)
            }
            try queue.close()
        }
        let dir = try TemporaryDirectory()
        try await storeAtV12(dir)
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(try await store.read { db in try db.indexes(on: "timeline").map(\.name) }.contains("timeline_state") == false)
        #expect(Fixtures.text(try await store.message(id: "m1")?.plaintext) == "kept")
        try store.close()

        // A v12 file the migration cannot apply to (its index already gone by hand): the open
        // fails and the migrator's transaction leaves the file as it was.
        let broken = try TemporaryDirectory()
        try await storeAtV12(broken)
        let queue = try DatabaseQueue(path: broken.storeURL.path)
        try await queue.write { db in try db.execute(sql: "DROP INDEX timeline_state") }
        try queue.close()
        #expect(throws: DatabaseError.self) { try KeyStore.open(at: broken.storeURL, key: key) }
        #expect(try appliedMigrations(broken.storeURL.path) == Array(StoreSchema.versions.prefix { $0 != "v13" }))
    }

    @Test func v14KeysEveryUsedPayloadIdAndTheRuleHoldsOnTheKey() async throws {
        let key = StoreKey.random()
        let dir = try TemporaryDirectory()
        let sealer = Sealer(key: key)
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v13")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
            let timeline = TimelineStore(sealer: sealer)
            for (id, at) in [("m1", 10), ("m2", 11), ("m3", 12)] {
                try timeline.storeMessage(Fixtures.message(id, at: Int64(at), plaintext: id), db)
            }
            // m1 and m2 used payload ids at v13 (the same id by two users); m3 none.
            try db.execute(sql: "UPDATE timeline SET sender_user_id = 'user-a', payload_id = 'p-1' WHERE message_id = 'm1'")
            try db.execute(sql: "UPDATE timeline SET sender_user_id = 'user-b', payload_id = 'p-1' WHERE message_id = 'm2'")
        }
        try queue.close()

        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let keys = try await store.read { db in
            try Row.fetchAll(db, sql: "SELECT message_id, payload_key FROM timeline ORDER BY message_id").map { row -> Data? in row["payload_key"] }
        }
        #expect(keys == [StoreSchema.payloadKey(senderUserID: "user-a", payloadID: "p-1"),
                         StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p-1"), nil])
        let indexes = try await store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'timeline'")
        }
        #expect(indexes.contains("timeline_payload_key") && !indexes.contains("timeline_payload_id"))
        // The rule now holds on the key: user-a's p-1 again is a duplicate of m1, user-c's is not.
        func row(_ id: String, at micros: Int64, user: String) -> TimelineMessage {
            var message = Fixtures.message(id, at: micros, plaintext: id)
            message.senderUserID = user
            return message
        }
        let results = try await store.storeReceiveBatch([
            ReceiveWrites.decrypted(row("m4", at: 13, user: "user-a"), payloadID: "p-1"),
            ReceiveWrites.decrypted(row("m5", at: 14, user: "user-c"), payloadID: "p-1"),
        ])
        #expect(results == [.duplicateOfPayload("m1"), .stored])
        try store.close()
    }

    @Test func v14KeysAStoreLargerThanOneMigrationPage() async throws {
        let key = StoreKey.random()
        let dir = try TemporaryDirectory()
        let sealer = Sealer(key: key)
        let rows = StoreSchema.migrationPageSize * 2 + 500
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v13")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
            for index in 0..<rows {
                // Every third row has no payload id, and one sender user is missing: no key for those.
                try db.execute(sql: """
                    INSERT INTO timeline (message_id, channel_id, sender_user_id, created_at, content_hash, state, failure_reason, payload_id)
                    VALUES (?, 'c', ?, ?, ?, 'undecryptable', 'test', ?)
                    """, arguments: ["m\(index)", index == 7 ? nil : "user-\(index % 5)", index, Data(Fixtures.hash("m\(index)")),
                                    index % 3 == 0 ? nil : "p-\(index)"])
            }
        }
        try queue.close()

        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let stored = try await store.read { db in
            try Row.fetchAll(db, sql: "SELECT sender_user_id, payload_id, payload_key FROM timeline").map { row in
                (user: row["sender_user_id"] as String?, payload: row["payload_id"] as String?, key: row["payload_key"] as Data?)
            }
        }
        #expect(stored.count == rows)
        #expect(stored.allSatisfy { $0.key == StoreSchema.payloadKey(senderUserID: $0.user, payloadID: $0.payload) })
        #expect(stored.filter { $0.key != nil }.count == (0..<rows).filter { $0 % 3 != 0 && $0 != 7 }.count)
        try store.close()
    }

    @Test func thePayloadKeyNamesOnePairAndNeedsBoth() {
        let key = StoreSchema.payloadKey(senderUserID: "ab", payloadID: "c")
        #expect(key?.count == StoreSchema.payloadKeyLength)
        #expect(key == StoreSchema.payloadKey(senderUserID: "ab", payloadID: "c"))
        // The same characters split differently are another pair.
        #expect(key != StoreSchema.payloadKey(senderUserID: "a", payloadID: "bc"))
        #expect(key != StoreSchema.payloadKey(senderUserID: "c", payloadID: "ab"))
        #expect(StoreSchema.payloadKey(senderUserID: nil, payloadID: "c") == nil)
        #expect(StoreSchema.payloadKey(senderUserID: "ab", payloadID: nil) == nil)
    }

    @Test func timelinePageQueryUsesTheIndex() async throws {
        let store = try KeyStore.inMemory()
        let plan = try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM timeline WHERE channel_id = ? AND (created_at, message_id) < (?, ?) ORDER BY created_at DESC, message_id DESC LIMIT ?",
                             arguments: ["c", 1, "m", 50]).map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("timeline_page") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
    }
}

@Suite struct MetadataLossTests {
    @Test func whenMetadataRowIsMissingButDataIsPresent_thenNotAKeyStore() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        try await store.storeAccount(AccountRecord(serverURL: "s", userID: "u", deviceID: "d", accessToken: Fixtures.secret("t"), refreshToken: nil, updatedAt: Fixtures.time(1)))
        try store.close()
        let queue = try DatabaseQueue(path: dir.storeURL.path)
        try await queue.write { db in try db.execute(sql: "DELETE FROM store_metadata") }
        try queue.close()
        // Re-initialising under a new key would silently orphan the sealed data: refused.
        #expect(throws: KeyStoreError.notAKeyStore) { try KeyStore.open(at: dir.storeURL, key: .random()) }
    }
}
