import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import Foundation
import Synchronization
import Testing

/// A keychain an app would back with its platform's (on Apple platforms a `…ThisDeviceOnly`
/// item): random 32-byte keys made on first use, kept in memory for the test's life.
final class MemoryKeychain: PrimaryFileKeychain {
    private let items = Mutex<[String: SecretBytes]>([:])
    private let withheld = Mutex(false)

    /// While set, the keychain answers as one that holds nothing (a locked device).
    func withhold(_ value: Bool) { withheld.withLock { $0 = value } }

    func key(item: String, create: Bool) throws -> SecretBytes? {
        if withheld.withLock({ $0 }) { return nil }
        return items.withLock { items in
            if let key = items[item] { return key }
            guard create else { return nil }
            let key = SecretBytes.random(count: 32)
            items[item] = key
            return key
        }
    }
}

/// Bob registers with linking on, over a store file in a directory of his own (the primary file
/// lies beside it), and Alice meets him in a DM, pinning his key from a real `createUserKey`.
struct OwnUserKeyScene {
    let harness: MessagingHarness
    let directory: URL
    let keychain: MemoryKeychain
    /// The key of Bob's store file (to open it again after its files were replaced).
    var storeKey = StoreKey.random()
    var bob: Account
    let alice: Account
    let dm: ChatChannel

    /// The store's file.
    var storeURL: URL { directory.appendingPathComponent("bob.sqlite") }
    /// Bob's primary file.
    var primaryFile: PrimaryFile { PrimaryFile(storePath: storeURL.path) }

    /// Bob's configuration with his text 1.3 clock moved by `offset` seconds.
    func configuration(offset: Int64 = 0, renewalInterval: Duration = .seconds(86_400)) -> AccountConfiguration {
        var configuration = MessagingHarness.recipientConfiguration
        configuration.ownRenewalInterval = renewalInterval
        configuration.linking = .on
        configuration.primaryFileKeychain = keychain
        configuration.debugClockOffset = .seconds(offset)
        return configuration
    }

    /// Sets the scene; Alice has sent "hello" and pinned Bob's key.
    static func make(_ harness: MessagingHarness) async throws -> OwnUserKeyScene {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-own-key-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keychain = MemoryKeychain()
        var configuration = MessagingHarness.recipientConfiguration
        configuration.linking = .on
        configuration.primaryFileKeychain = keychain
        let storeKey = StoreKey.random()
        let store = try KeyStore.open(at: directory.appendingPathComponent("bob.sqlite"), key: storeKey)
        let bob = try await harness.register("bob", store: store, configuration: configuration)
        let alice = try await harness.registerWithDefaults("alice")
        let dm = try await harness.acceptedDM(alice, bob)
        var scene = OwnUserKeyScene(harness: harness, directory: directory, keychain: keychain, bob: bob, alice: alice, dm: dm)
        scene.storeKey = storeKey
        let first = try await scene.aliceSends("hello")
        #expect(first.recipients == [bob.deviceID], "setting up: Alice's first message")
        return scene
    }

    init(harness: MessagingHarness, directory: URL, keychain: MemoryKeychain, bob: Account, alice: Account, dm: ChatChannel) {
        self.harness = harness
        self.directory = directory
        self.bob = bob
        self.alice = alice
        self.dm = dm
        self.keychain = keychain
    }

    /// Alice sends `text` to Bob.
    func aliceSends(_ text: String) async throws -> KeyedContact.Sent {
        try await KeyedContact.send(text, from: alice, to: dm.id, harness: harness)
    }

    /// Bob's process stops and starts again with his clock `offset` seconds ahead (start-up runs the renewal).
    mutating func restartBob(offset: Int64, renewalInterval: Duration = .seconds(86_400)) async throws {
        await bob.shutdown()
        bob = try await Account.open(server: try await harness.client(restoring: bob.store), store: bob.store,
                                     configuration: configuration(offset: offset, renewalInterval: renewalInterval))
    }

    /// Bob's process stops and his store file is closed; `replace` runs on the closed files
    /// (a copy taken, or an older copy put back); then his account opens again on them.
    mutating func reopenBob(replacing replace: (URL) throws -> Void = { _ in }) async throws {
        await bob.shutdown()
        try bob.store.close()
        try replace(storeURL)
        let store = try KeyStore.open(at: storeURL, key: storeKey)
        bob = try await Account.open(server: try await harness.client(restoring: store), store: store, configuration: configuration())
    }

    /// Copies Bob's closed store files (database and side files) into `backup`, or puts such a
    /// copy back in their place.
    static func copyStore(at url: URL, to backup: URL) throws {
        try? FileManager.default.removeItem(at: backup)
        try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: backup.appendingPathComponent(url.lastPathComponent + suffix).path)
        }
    }

    /// Puts the copy `copyStore(at:to:)` took back in place of the current store files.
    static func restoreStore(at url: URL, from backup: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
            let saved = backup.appendingPathComponent(url.lastPathComponent + suffix).path
            if FileManager.default.fileExists(atPath: saved) { try FileManager.default.copyItem(atPath: saved, toPath: url.path + suffix) }
        }
    }

    /// The certificate the server lists for Bob's device now, verified for him.
    func listedCertificate() async throws -> DeviceCertificate? {
        let reader = try await harness.reader(of: alice)
        let json = try await reader.bundle(deviceID: bob.deviceID)
        let bundle = try PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                      signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey)
        return bundle.verifiedCertificate(forUser: try WireUUID(text: bob.userID.rawValue))
    }

    /// The primary file's contents, opened with the keychain's key.
    func fileContents() throws -> PrimaryFileContents {
        let key = try #require(try keychain.key(item: PrimaryFile.keychainItem(userID: bob.userID.rawValue), create: false))
        return try primaryFile.load(key: key)
    }

    /// Removes the scene's directory.
    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}
