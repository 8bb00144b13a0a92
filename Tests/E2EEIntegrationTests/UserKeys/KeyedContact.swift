import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import Foundation
import Testing

/// The scene of the linking proposal's attacks (part K, piece 2): Bob's phone P and laptop L
/// carry certificates under his user key K1, published by the devices themselves
/// (``Account/debugPublishCertificate(_:)``), and Alice met Bob in a DM, pinning K1. The records
/// each device published before and under K1 are kept, so that a test can have the server serve
/// them again (``FaultInjector/serveRecord(device:record:toViewer:)``).
struct KeyedContact {
    let harness: MessagingHarness
    /// Alice, on §5's default policies (listings re-read before every send).
    var alice: Account
    /// Bob's phone P.
    let phone: Account
    /// Bob's laptop L.
    let laptop: Account
    /// K1.
    let userKey: Ed25519.PrivateKey
    /// K1 as the API shows it.
    let key: UserKey
    /// The `not_after` of P's and L's certificates.
    let phoneNotAfter: UInt32
    let laptopNotAfter: UInt32
    /// Alice's DM with Bob, accepted on P and L.
    let dm: ChatChannel
    /// P's and L's records before they carried a certificate (zero certificates).
    let zeroRecords: [DeviceID: DeviceBundle]
    /// P's and L's records under K1 at epoch 1.
    let firstRecords: [DeviceID: DeviceBundle]

    /// Bob.
    var bob: UserID { phone.userID }


    /// Sets the scene: Alice's first message to Bob pins K1 and reaches P and L.
    static func make(_ harness: MessagingHarness, phoneLifetime: Int64 = 20 * day, laptopLifetime: Int64 = 20 * day) async throws -> KeyedContact {
        let alice = try await harness.register("alice", configuration: configuration())
        let phone = try await harness.registerWithDefaults("bob")
        let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
        let zeroRecords = try await records(of: [phone, laptop], harness: harness)
        let userKey = Ed25519.PrivateKey()
        let phoneNotAfter = UInt32(wallClock() + phoneLifetime), laptopNotAfter = UInt32(wallClock() + laptopLifetime)
        try await certify(phone, by: userKey, notAfter: phoneNotAfter)
        try await certify(laptop, by: userKey, notAfter: laptopNotAfter)
        let firstRecords = try await records(of: [phone, laptop], harness: harness)

        let dm = try await alice.openDirectMessage(with: phone.userID)
        try await harness.accept(dm, on: [phone, laptop], between: (alice.userID, phone.userID))
        let scene = KeyedContact(harness: harness, alice: alice, phone: phone, laptop: laptop, userKey: userKey,
                                 key: try Self.userKey(userKey), phoneNotAfter: phoneNotAfter,
                                 laptopNotAfter: laptopNotAfter, dm: dm, zeroRecords: zeroRecords, firstRecords: firstRecords)
        let first = try await scene.send("hello")
        #expect(first.recipients == [phone.deviceID, laptop.deviceID], "setting up: Alice's first message")
        let info = try await alice.userKey(of: phone.userID)
        #expect(info.state == .pinned && info.key == scene.key, "setting up: K1 pinned at first contact")
        return scene
    }

    // MARK: - Sending

    /// What one send did: the report, and the devices the posted envelope named (`nil`: nothing posted).
    struct Sent {
        var report: SendReport
        var recipients: Set<DeviceID>?
    }

    /// Alice sends `text` in the DM with Bob and waits for her outbox.
    func send(_ text: String) async throws -> Sent {
        try await Self.send(text, from: alice, to: dm.id, harness: harness)
    }

    /// `account` sends `text` to `channelID`; the recipients are those of the last envelope it
    /// posted there (a group's sender key distribution when one went out, else nothing).
    static func send(_ text: String, from account: Account, to channelID: ChannelID, harness: MessagingHarness) async throws -> Sent {
        let reader = try await harness.reader(of: account)
        let before = try await harness.serverMessages(channelID, as: reader).map(\.id)
        let report = try await account.send(text: text, to: channelID)
        await account.waitForOutbox()
        let new = try await harness.serverMessages(channelID, as: reader).filter { !before.contains($0.id) }
        guard !new.isEmpty else { return Sent(report: report, recipients: nil) }
        var devices: Set<DeviceID> = []
        for message in new { devices.formUnion(try recipientDevices(of: message)) }
        return Sent(report: report, recipients: devices)
    }

    // MARK: - Keys and records

    /// Seconds in a day.
    static let day: Int64 = 86_400

    /// The system clock in unix seconds (what the accounts' text 1.3 clock reads, before any offset).
    static func wallClock() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// A certificate for `account` under `key`.
    static func certificate(for account: Account, by key: Ed25519.PrivateKey, epoch: UInt32 = 1, notAfter: UInt32) throws -> DeviceCertificate {
        try DeviceCertificate.issue(by: key, userID: WireUUID(text: account.userID.rawValue), deviceID: WireUUID(text: account.deviceID.rawValue),
                                    identity: account.identity, epoch: epoch, notAfter: notAfter)
    }

    /// `account` publishes a certificate under `key` (its own `SIG` signs the record).
    @discardableResult
    static func certify(_ account: Account, by key: Ed25519.PrivateKey, epoch: UInt32 = 1, notAfter: UInt32) async throws -> DeviceCertificate {
        let certificate = try certificate(for: account, by: key, epoch: epoch, notAfter: notAfter)
        try await account.debugPublishCertificate(certificate.bytes)
        return certificate
    }

    /// The bundles the server holds now for `accounts`' devices read as the first of them.
    static func records(of accounts: [Account], harness: MessagingHarness) async throws -> [DeviceID: DeviceBundle] {
        guard let first = accounts.first else { return [:] }
        let reader = try await harness.reader(of: first)
        var records: [DeviceID: DeviceBundle] = [:]
        for account in accounts { records[account.deviceID] = try await reader.bundle(deviceID: account.deviceID) }
        return records
    }

    /// The server serves `bundle`'s record (and its signature) as `device`'s, to `viewer` or to everyone.
    func serve(_ bundle: DeviceBundle?, as device: DeviceID, to viewer: Account? = nil) async {
        let record: FaultInjector.ServedRecord = bundle.map { .given(signedPreKey: $0.signedPreKey, signature: $0.signedPreKeySignature) } ?? .absent
        await harness.server.faults.serveRecord(device: device.rawValue, record: record, toViewer: viewer?.deviceID.rawValue)
    }

    /// A key as the API shows it.
    static func userKey(_ key: Ed25519.PrivateKey) throws -> UserKey {
        try #require(UserKey(publicKey: key.publicKey.rawRepresentation))
    }

    // MARK: - Clocks

    /// Alice's configuration: §5's defaults, with her text 1.3 clock moved by `offset` seconds.
    static func configuration(offset: Int64 = 0) -> AccountConfiguration {
        var configuration = MessagingHarness.recipientConfiguration
        configuration.debugClockOffset = .seconds(offset)
        return configuration
    }

    /// Closes `account` and opens its store again with its text 1.3 clock reading `at` (unix
    /// seconds) now, as a device whose clock moved; the user confirms it when `confirm` is set
    /// (the agreed reading §10.17's gates count by).
    static func reopen(_ account: Account, at time: Int64, confirm: Bool, harness: MessagingHarness) async throws -> Account {
        await account.shutdown()
        let reopened = try await Account.open(server: try await harness.client(restoring: account.store), store: account.store,
                                              configuration: configuration(offset: time - wallClock()))
        if confirm { try await reopened.confirmClock() }
        return reopened
    }

    /// Alice's clock moved to `time` (see ``reopen(_:at:confirm:harness:)``).
    mutating func moveAliceClock(to time: Int64, confirm: Bool) async throws {
        alice = try await Self.reopen(alice, at: time, confirm: confirm, harness: harness)
    }
}

/// Every event of one account from its subscription on, to look for what a user would be shown.
final class EventLog: Sendable {
    private let seen = Watched<[AccountEvent]>([])
    private let task: Task<Void, Never>

    /// Starts listening to `account`.
    init(_ account: Account) {
        let events = account.events()
        let seen = seen
        task = Task {
            for await event in events { seen.update { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    /// The identity events seen so far, after letting the ones already published arrive.
    func identity() async -> [IdentityEvent] {
        await settle()
        return seen.value.compactMap { if case .identity(let event) = $0 { event } else { nil } }
    }

    /// Every event seen so far, after letting the ones already published arrive.
    func all() async -> [AccountEvent] {
        await settle()
        return seen.value
    }

    /// How many identity events match.
    func count(_ predicate: (IdentityEvent) -> Bool) async -> Int {
        await identity().filter(predicate).count
    }

    /// The user-key events (text 1.3) seen so far.
    func userKeyEvents() async -> [IdentityEvent] {
        await identity().filter {
            switch $0 {
            case .linkedDeviceAdded, .deviceUnlinked, .userKeyAdopted, .otherUserKeyListed, .userKeyChanged, .userKeyConflict,
                 .noVerifiedDevice, .invalidCertificate: true
            default: false
            }
        }
    }

    /// Gives events published before this call time to reach the log.
    private func settle() async {
        try? await Task.sleep(nanoseconds: 150_000_000)
    }
}

extension IdentityEvent {
    /// A prompt about a user's key: a change to accept or a conflict to resolve.
    var isKeyPrompt: Bool {
        switch self {
        case .userKeyChanged, .userKeyConflict: true
        default: false
        }
    }
}
