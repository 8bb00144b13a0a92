import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import GRDB
import Testing

/// Golden stores: files written by the code of one schema version through the real
/// operations (``GoldenStore``), committed with what every product read returned on them then
/// (``GoldenStoreReads``, as JSON). Every later version of the code must open a copy, migrate
/// it, and read back exactly that.
///
/// Write the golden store of the current schema version (only when adding a new golden version,
/// never to make a check pass) with
/// `E2EE_WRITE_GOLDEN_STORE=1 swift test --filter GoldenStoreTests/writeGoldenStore`, then add
/// its version to ``versions``.
@Suite struct GoldenStoreTests {
    /// The schema versions a golden store is committed for.
    static let versions = ["v12", "v14", "v16"]
    static let fixtures = RepositoryPaths.root.appendingPathComponent("Tests/E2EEKeyStoreTests/Fixtures")
    static func storeURL(_ version: String) -> URL { fixtures.appendingPathComponent("store-\(version).sqlite") }
    static func readsURL(_ version: String) -> URL { fixtures.appendingPathComponent("store-\(version)-reads.json") }
    static var key: StoreKey { get throws { try StoreKey(SecretBytes(copying: GoldenStore.key)) } }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["E2EE_WRITE_GOLDEN_STORE"] == "1", "writes a golden store; run by hand"))
    func writeGoldenStore() async throws {
        let version = try #require(StoreSchema.versions.last)
        let url = Self.storeURL(version)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let store = try KeyStore.open(at: url, key: try Self.key)
        try await GoldenStore.fill(store)
        try await store.checkpoint()
        try store.close()

        let reopened = try KeyStore.open(at: url, key: try Self.key)
        let reads = try await GoldenStoreReads.capture(reopened)
        try reopened.close()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(reads).write(to: Self.readsURL(version))
        // The pool's read-only connections close last and cannot fold the WAL back: one
        // read-write connection, closed alone, leaves a single file to commit.
        try DatabaseQueue(path: url.path).close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "the closed store left its WAL behind")
    }

    @Test(arguments: versions)
    func goldenStoreMigratesAndReadsBackIdentically(version: String) async throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Self.storeURL(version), to: dir.storeURL)
        #expect(try Self.appliedMigrations(dir.storeURL) == Array(StoreSchema.versions.prefix { $0 != version }) + [version])

        let store = try KeyStore.open(at: dir.storeURL, key: try Self.key)
        let reads = try await GoldenStoreReads.capture(store)
        let expected = try JSONDecoder().decode([String: [String]].self, from: Data(contentsOf: Self.readsURL(version)))
        #expect(reads.keys.sorted() == expected.keys.sorted())
        for name in expected.keys.sorted() {
            #expect(reads[name] == expected[name], "\(name)")
        }
        #expect(try await store.integrityCheck() == ["ok"])
        try store.close()
        #expect(try Self.appliedMigrations(dir.storeURL) == StoreSchema.versions)
    }

    /// After migrating, the writes that lean on the timeline's indexes still behave: a used
    /// (sender user, payload id) makes a duplicate, a stored tombstone erases its message when
    /// it comes, and the pending message is found by its key and decrypted.
    @Test(arguments: versions)
    func goldenStoreKeepsDedupeTombstonesAndPendingAfterMigrating(version: String) async throws {
        typealias G = GoldenStore
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Self.storeURL(version), to: dir.storeURL)
        let store = try KeyStore.open(at: dir.storeURL, key: try Self.key)
        let results = try await store.storeReceiveBatch([
            G.decrypted(G.row("g-20", at: 30, text: "reuses p-g2"), payloadID: "p-g2"),
            G.decrypted(G.row("g-10", at: 31, text: "named by a tombstone"), payloadID: "p-g10"),
        ])
        #expect(results == [.duplicateOfPayload("g-2"), .storedErased])
        #expect(try await store.receivedMessage(id: "g-10")?.message.state == .deleted)

        let waiting = try await store.pendingReceives(waitingFor: ["sender_key:\(G.senderKeyC)"])
        #expect(waiting.map(\.pending.messageID) == ["g-c1"])
        let key = ReceiverSenderKey(address: G.senderKeyC, senderUserID: G.userC, state: G.secret("c sender key"), createdAt: G.time(32), updatedAt: G.time(32))
        #expect(try await store.storeReceiveBatch([
            G.decrypted(G.row("g-c1", user: G.userC, device: G.deviceC, at: 10, text: "opened at last"), payloadID: "p-c1", senderKey: key),
        ]) == [.stored])
        #expect(try await store.pendingCount() == 0)
        #expect(try await store.receivedTimelinePage(channelID: G.group).map(\.message.messageID) == ["g-1", "g-2", "g-3", "g-9", "g-c1", "g-c2", "g-c3", "g-c4", "s-1", "g-10"])
        try store.close()
    }

    /// The applied migrations of the file at `url`, in registration order.
    static func appliedMigrations(_ url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let applied = try queue.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
        return StoreSchema.versions.filter(applied.contains) + applied.subtracting(StoreSchema.versions).sorted()
    }
}
