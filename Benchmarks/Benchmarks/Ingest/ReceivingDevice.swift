import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The receiving account's side for one sample: a fresh store file (sealing at rest, WAL with
/// GRDB's `synchronous = NORMAL`, as the app opens it) holding the receiver's prekeys, and the receive
/// pipeline over it, wired as `Account` wires it (shared protocol-state locks, an event
/// subscriber reading every event the way an app's UI would).
final class ReceivingDevice {
    let directory: URL
    let store: KeyStore
    let pipeline: ReceivePipeline
    private let broadcaster: EventBroadcaster
    private let reader: Task<Int, Never>

    /// Creates the store in a new temporary directory and installs `keys`.
    static func make(keys: ReceiverKeys, listed: [String: [String: IdentityBlob]]) async throws -> ReceivingDevice {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try KeyStore.open(at: directory.appendingPathComponent("receiver.sqlite"), key: .random())
        try await keys.install(into: store)
        return ReceivingDevice(directory: directory, store: store, keys: keys, listed: listed)
    }

    private init(directory: URL, store: KeyStore, keys: ReceiverKeys, listed: [String: [String: IdentityBlob]]) {
        self.directory = directory
        self.store = store
        broadcaster = EventBroadcaster()
        let events = broadcaster.events()
        reader = Task {
            var count = 0
            for await _ in events { count += 1 }
            return count
        }
        pipeline = ReceivePipeline(store: store, device: keys.device, listedIdentities: ListedIdentities(listed: listed),
                                   ownMessages: NoOwnMessages(), events: broadcaster, locks: KeyedAsyncLock())
    }

    /// Ends the event subscription; returns how many events the app saw.
    func finishEvents() async -> Int {
        broadcaster.finish()
        return await reader.value
    }

    /// Closes the store and deletes its directory.
    func remove() {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The identities the server lists (what `DeviceDirectory` answers from its cache).
private struct ListedIdentities: ListedIdentityProviding {
    let listed: [String: [String: IdentityBlob]]

    func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob] { listed[userID.rawValue] ?? [:] }
}

/// The outbox's answer for rows claiming the receiver's device: none of the workload does.
private struct NoOwnMessages: OwnMessageObserving {
    func ownMessageSeen(_ message: ServerMessage) async throws -> Bool { false }
}
