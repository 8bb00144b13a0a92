import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// The store's mirror of our own user key (schema `v20`, docs/spec/protocol.md §3 "State").
@Suite struct OwnUserKeyStoreTests {
    static func primary() -> OwnUserKeyRecord {
        OwnUserKeyRecord(role: .primary, userKey: Fixtures.bytes(32, 1), primaryDeviceID: "d-1", certificate: Fixtures.bytes(104, 2),
                         fileID: Fixtures.bytes(16, 3), epoch: 4, logCount: 5, trustCounter: 6, createdAt: 1_700_000_000)
    }

    @Test("v20: the mirror is stored, replaced and survives reopening; no row is no key")
    func mirrorRoundTrip() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(try await store.read { db in try store.ownUserKeyStore.load(db) } == nil)
        var record = Self.primary()
        try await store.write { [record] db in
            try store.ownUserKeyStore.store(record, db)
            try store.ownUserKeyStore.addLegacyDevices([LegacyOwnDevice(deviceID: "d-2", lapsesAt: 10)], db)
            try store.ownUserKeyStore.addLegacyDevices([LegacyOwnDevice(deviceID: "d-2", lapsesAt: 99), LegacyOwnDevice(deviceID: "d-0", lapsesAt: 11)], db)
        }
        record.logCount = 9
        record.issuingStopped = .restoredFile
        try await store.write { [record] db in try store.ownUserKeyStore.store(record, db) }
        try store.close()
        let reopened = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(try await reopened.read { db in try reopened.ownUserKeyStore.load(db) } == record)
        #expect(try await reopened.read { db in try reopened.ownUserKeyStore.loadLegacyDevices(db) }
                == [LegacyOwnDevice(deviceID: "d-0", lapsesAt: 11), LegacyOwnDevice(deviceID: "d-2", lapsesAt: 10)])
    }

    @Test("v20's checks: a primary needs its key and file id; a certificate is 104 bytes")
    func checks() async throws {
        let store = try KeyStore.inMemory()
        var keyless = Self.primary()
        keyless.userKey = nil
        await #expect(throws: DatabaseError.self) { try await store.write { [keyless] db in try store.ownUserKeyStore.store(keyless, db) } }
        var short = Self.primary()
        short.certificate = Fixtures.bytes(103, 1)
        await #expect(throws: DatabaseError.self) { try await store.write { [short] db in try store.ownUserKeyStore.store(short, db) } }
    }

    @Test("a v19 store migrates to v20 with its data, and gains the empty mirror")
    func migratesFromV19() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let sealer = Sealer(key: key)
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v19")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
            try db.execute(sql: "UPDATE store_metadata SET clock_mark = 1234")
            try IdentityKeyStore(sealer: sealer).storePublishedCertificate(Fixtures.bytes(104, 7), at: Fixtures.time(1), db)
        }
        let tables = try await queue.read { db in try db.tableExists("own_user_key") }
        #expect(!tables)
        try queue.close()

        let store = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(try await store.read { db in try store.ownUserKeyStore.load(db) } == nil)
        #expect(try await store.read { db in try store.ownUserKeyStore.loadLegacyDevices(db) }.isEmpty)
        #expect(try await store.publishedCertificate() == Fixtures.bytes(104, 7))
        #expect(try await store.read { db in try store.contactKeyStore.loadClock(now: 0, db).mark } == 1234)
        try await store.write { db in try store.ownUserKeyStore.store(Self.primary(), db) }
        #expect(try await store.read { db in try store.ownUserKeyStore.load(db) } == Self.primary())
    }
}
