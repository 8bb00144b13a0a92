import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import GRDB
import Testing

/// A store file written by schema version `v1` and committed to the repository: it must keep
/// opening, migrating and reading with every later version of the code.
///
/// Regenerate (only when adding a new golden version, never to make this pass) with
/// `E2EE_WRITE_GOLDEN=1 swift test --filter GoldenFileTests`.
@Suite struct GoldenFileTests {
    static let fixture = RepositoryPaths.root.appendingPathComponent("Tests/E2EEKeyStoreTests/Fixtures/store-v1.sqlite")
    static let key = (0..<32).map { _ in UInt8(0x42) }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["E2EE_WRITE_GOLDEN"] == "1", "regenerates the golden file; run by hand"))
    func writeGoldenFile() throws {
        try? FileManager.default.removeItem(at: Self.fixture)
        let sealer = Sealer(key: try StoreKey(SecretBytes(copying: Self.key)))
        let queue = try DatabaseQueue(path: Self.fixture.path)
        try StoreSchema.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1_700_000_000_000_000)
            try AccountStore(sealer: sealer).storeAccount(AccountRecord(serverURL: "https://chat.example", userID: "user-1", deviceID: "device-1",
                                                                  accessToken: Fixtures.secret("golden access"), refreshToken: Fixtures.secret("golden refresh"),
                                                                  updatedAt: Fixtures.time(1_700_000_000)), db)
            try SessionStore(sealer: sealer).installSession(userID: "user-2", deviceID: "device-2", state: Fixtures.secret("golden session"),
                                                            id: "session-1", at: Fixtures.time(1_700_000_001), db)
            try TimelineStore(sealer: sealer).storeMessage(Fixtures.message("message-1", at: 1_700_000_002_000_000, plaintext: "golden plaintext"), db)
        }
        try queue.close()
    }

    @Test func storeWrittenByV1OpensMigratesAndReads() async throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Self.fixture, to: dir.storeURL)
        let store = try KeyStore.open(at: dir.storeURL, key: try StoreKey(SecretBytes(copying: Self.key)))
        let account = try #require(try await store.loadAccount())
        #expect(account.userID == "user-1")
        #expect(Fixtures.text(account.refreshToken) == "golden refresh")
        let session = try await store.read { db in try store.sessionStore.loadCurrentSession(userID: "user-2", deviceID: "device-2", db) }
        #expect(session?.id == "session-1")
        #expect(Fixtures.text(session?.state) == "golden session")
        #expect(Fixtures.text(try await store.message(id: "message-1")?.plaintext) == "golden plaintext")
        #expect(try await store.integrityCheck() == ["ok"])
        let applied = try await store.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
        #expect(StoreSchema.versions.filter(applied.contains) == StoreSchema.versions)
        #expect(applied.count == StoreSchema.versions.count)
    }
}
