import E2EECrypto
@testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// Issue 16 items 5 and 6: a store file edited to demand an absurd Argon2id cost is refused
/// before deriving, and every file SQLite makes for a store is owner-only under umask 022.
@Suite struct StoreFileHardeningTests {
    private func editKDF(_ url: URL, iterations: Int64, memoryKiB: Int64) throws {
        let raw = try DatabaseQueue(path: url.path)
        try raw.write { db in
            try db.execute(sql: "UPDATE store_metadata SET kdf_iterations = ?, kdf_memory_kib = ?", arguments: [iterations, memoryKiB])
        }
        try raw.close()
    }

    private func passphraseStore(_ dir: TemporaryDirectory) throws {
        try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: Fixtures.fastKDF).close()
    }

    @Test func whenFileAsksForFourBillionPasses_thenRefusedBeforeDeriving() throws {
        let dir = try TemporaryDirectory()
        try passphraseStore(dir)
        try editKDF(dir.storeURL, iterations: 4_294_967_295, memoryKiB: 8)
        #expect(throws: KeyStoreError.kdfParametersOutOfBounds(iterations: 4_294_967_295, memoryKiB: 8)) {
            try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: Fixtures.fastKDF)
        }
    }

    @Test func whenFileAsksForATerabyteOfMemory_thenRefusedBeforeDeriving() throws {
        let dir = try TemporaryDirectory()
        try passphraseStore(dir)
        try editKDF(dir.storeURL, iterations: 1, memoryKiB: 1 << 30)
        #expect(throws: KeyStoreError.kdfParametersOutOfBounds(iterations: 1, memoryKiB: 1 << 30)) {
            try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: Fixtures.fastKDF)
        }
    }

    @Test func atTheBounds_theFileStillOpens() throws {
        let dir = try TemporaryDirectory()
        try passphraseStore(dir)
        // 10 passes over 8 KiB is the largest pass count accepted; it derives a different key, so
        // the key check (not the bound) refuses it: the bound let it through to deriving.
        try editKDF(dir.storeURL, iterations: Int64(ProtocolLimits.storeKDFIterationsRange.upperBound), memoryKiB: 8)
        #expect(throws: KeyStoreError.wrongKey) {
            try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: Fixtures.fastKDF)
        }
        try editKDF(dir.storeURL, iterations: 1, memoryKiB: 8)
        try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: Fixtures.fastKDF).close()
    }

    @Test func whenCreatingWithAbsurdParameters_thenRefusedAndNothingDerived() throws {
        let dir = try TemporaryDirectory()
        let absurd = Argon2id.Parameters(iterations: 1_000, memoryKiB: 8)
        #expect(throws: KeyStoreError.kdfParametersOutOfBounds(iterations: 1_000, memoryKiB: 8)) {
            try KeyStore.open(at: dir.storeURL, passphrase: Fixtures.secret("pw"), parameters: absurd)
        }
    }

    @Test func underUmask022_everyStoreFileIsOwnerOnly() async throws {
        let dir = try TemporaryDirectory()
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        // A write makes SQLite create the WAL; the pool's readers map the shared-memory file.
        try await store.storeAccount(AccountRecord(serverURL: "s", userID: "u", deviceID: "d", accessToken: Fixtures.secret("token"),
                                                   refreshToken: nil, updatedAt: Fixtures.time(1)))
        _ = try await store.loadAccount()
        let paths = [dir.storeURL.path, dir.storeURL.path + "-wal", dir.storeURL.path + "-shm"]
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: path), "\(path) exists")
            #expect(StoreFilePermissions.mode(of: path) == 0o600, "\(path) is owner-only")
        }
        try store.close()
    }

    @Test func anExistingWorldReadableStoreIsTightenedOnOpen() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let previous = umask(0o022)
        defer { umask(previous) }
        // A store as the old code left it: made by SQLite itself under umask 022.
        let legacy = try DatabaseQueue(path: dir.storeURL.path)
        try legacy.close()
        #expect(StoreFilePermissions.mode(of: dir.storeURL.path) == 0o644)
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        try await store.storeAccount(AccountRecord(serverURL: "s", userID: "u", deviceID: "d", accessToken: nil, refreshToken: nil,
                                                   updatedAt: Fixtures.time(1)))
        for path in [dir.storeURL.path, dir.storeURL.path + "-wal", dir.storeURL.path + "-shm"] {
            #expect(StoreFilePermissions.mode(of: path) == 0o600, "\(path) is owner-only")
        }
        try store.close()
    }
}
