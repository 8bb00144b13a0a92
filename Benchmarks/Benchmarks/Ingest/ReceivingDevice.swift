import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The receiving account for one sample: a fresh store file (sealing at rest, WAL with GRDB's
/// `synchronous = NORMAL`, as the app opens it) holding the receiver's keys and account row, the
/// `Account` opened over it as an app opens it after a restart — its directory, outbox, rollback
/// check and receive pipeline wired as in the product — talking to ``IngestServer``, and an
/// event subscriber reading every event the way an app's UI would. Before the sample the app
/// has done what a user of these channels did: read the channel list, opened the two DMs and
/// accepted the two groups with the members the server lists (so the DMs' participants are
/// fixed and the groups' senders approved, as on a device that has been chatting in them).
final class ReceivingDevice {
    let directory: URL
    let store: KeyStore
    let account: Account
    private let reader: Task<Int, Never>

    /// Creates the store in a new temporary directory, installs `keys`, opens the account and
    /// joins `traffic`'s channels as the user did.
    static func make(keys: ReceiverKeys, traffic: Traffic) async throws -> ReceivingDevice {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try KeyStore.open(at: directory.appendingPathComponent("receiver.sqlite"), key: .random())
        try await keys.install(into: store)
        return try await make(store: store, in: directory, keys: keys, traffic: traffic)
    }

    /// Opens the account over `store` (in `directory`, which ``remove()`` deletes; the keys
    /// already installed) and joins `traffic`'s channels as the user did.
    static func make(store: KeyStore, in directory: URL, keys: ReceiverKeys, traffic: Traffic) async throws -> ReceivingDevice {
        var configuration = AccountConfiguration()
        configuration.receiveCommitWindow = commitWindow
        let account = try await Account.open(server: IngestServer(traffic: traffic, receiver: keys.device.userID), store: store,
                                             configuration: configuration)
        _ = try await account.refreshChannels()
        for (index, channel) in traffic.channels.enumerated() {
            if channel.encryption == .x3dh, let other = traffic.members[index].first {
                _ = try await account.openDirectMessage(with: UserID(other))
            } else {
                try await account.acceptChannel(channel.id)
            }
        }
        return ReceivingDevice(directory: directory, store: store, account: account)
    }

    /// The receive commit window (issue 47, decision 2): `INGEST_COMMIT_WAIT_MS` (0: none) sets
    /// its time bound, `INGEST_COMMIT_ROWS` its row bound; the product's bounds otherwise.
    static let commitWindow: CommitWindow = {
        let environment = ProcessInfo.processInfo.environment
        var window = CommitWindow.standard
        if let text = environment["INGEST_COMMIT_WAIT_MS"], let milliseconds = Int(text) { window.maxWait = .milliseconds(max(0, milliseconds)) }
        if let text = environment["INGEST_COMMIT_ROWS"], let rows = Int(text) { window.maxRows = max(1, rows) }
        return window
    }()

    private init(directory: URL, store: KeyStore, account: Account) {
        self.directory = directory
        self.store = store
        self.account = account
        let events = account.events()
        reader = Task {
            var count = 0
            for await _ in events { count += 1 }
            return count
        }
    }

    /// Ends the event subscription (after reading what was published); returns how many events
    /// the app saw.
    func finishEvents() async -> Int {
        // Cancelling ends the stream once its buffered events are read.
        reader.cancel()
        return await reader.value
    }

    /// Shuts the account down, closes the store and deletes its directory.
    func remove() async {
        await account.shutdown()
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
