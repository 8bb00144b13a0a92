import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

/// A development server on a free loopback port and accounts on it, each with its own
/// in-memory (or file) store and its own real HTTP client: what an app does, minus the UI.
struct MessagingHarness: Sendable {
    let server: RunningDevServer

    /// Runs `body` against a fresh server and always shuts it down.
    static func with<T: Sendable>(_ configuration: DevServerConfiguration = .testing(), _ body: (MessagingHarness) async throws -> T) async throws -> T {
        let server = try await DevServer.start(configuration: configuration)
        do {
            let result = try await body(MessagingHarness(server: server))
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// The account configuration tests use: no real waiting between retries, and the `surface`
    /// recipient policy (new devices get keys and are surfaced) so suites about other things
    /// can add devices freely; the recipient suites use ``recipientConfiguration`` (§5's defaults).
    static let testConfiguration: AccountConfiguration = {
        var configuration = AccountConfiguration(outbox: OutboxPolicy(maxAttempts: 3, backoff: [.zero, .zero]), sleep: { _ in })
        configuration.recipientPolicy = .surface
        return configuration
    }()

    /// As ``testConfiguration`` with docs/spec/protocol.md §5's default recipient policies, and member and
    /// device lists re-read before every send (what an attacker changes shows at once).
    static let recipientConfiguration = AccountConfiguration(memberLifetime: .zero, deviceLifetime: .zero,
                                                             outbox: OutboxPolicy(maxAttempts: 3, backoff: [.zero, .zero]), sleep: { _ in })

    /// A real HTTP client whose tokens live in `store`.
    func client(store: KeyStore) -> HTTPChatServer {
        HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: store, serverURL: server.baseURL), sleep: { _ in })
    }

    /// Registers `username` (its first device) with keys bootstrapped.
    func register(_ username: String, store: KeyStore? = nil, configuration: AccountConfiguration = testConfiguration,
                  api: ((HTTPChatServer) -> any ChatServerAPI)? = nil) async throws -> Account {
        let store = try store ?? KeyStore.inMemory()
        let http = client(store: store)
        let account = try await Account.register(username: username, password: "password123", deviceName: "phone",
                                                 server: api?(http) ?? http, store: store, configuration: configuration)
        _ = try await account.bootstrapKeys()
        return account
    }

    /// Logs `username` in again: a new device, with keys bootstrapped.
    func login(_ username: String, deviceName: String = "laptop", configuration: AccountConfiguration = testConfiguration,
               api: ((HTTPChatServer) -> any ChatServerAPI)? = nil) async throws -> Account {
        let store = try KeyStore.inMemory()
        let http = client(store: store)
        let account = try await Account.login(username: username, password: "password123", deviceName: deviceName,
                                              server: api?(http) ?? http, store: store, configuration: configuration)
        _ = try await account.bootstrapKeys()
        return account
    }

    /// A client using the tokens saved in `store` (what an app does after a restart).
    func client(restoring store: KeyStore) async throws -> HTTPChatServer {
        HTTPChatServer(baseURL: server.baseURL, session: try await AuthSession.restored(from: store), sleep: { _ in })
    }

    /// A second client of `account`'s user, with the tokens saved in its store (to read what
    /// the server holds as that user).
    func reader(of account: Account) async throws -> HTTPChatServer {
        HTTPChatServer(baseURL: server.baseURL, session: try await AuthSession.restored(from: account.store), sleep: { _ in })
    }

    /// An observer's client (logged in as a fresh user) to read what the server holds.
    func observer() async throws -> HTTPChatServer {
        let http = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL), sleep: { _ in })
        _ = try await http.register(username: "observer\(Int.random(in: 1000...9999))", password: "password123", deviceName: "probe")
        return http
    }

    /// Every message of a channel as the server holds it, oldest first (read by a member).
    func serverMessages(_ channelID: ChannelID, as reader: HTTPChatServer) async throws -> [ServerMessage] {
        try await reader.messages(channelID: channelID, before: nil, limit: 100).messages
    }
}

/// The decoded envelope of a posted message.
func envelope(of message: ServerMessage) throws -> Envelope {
    try Envelope.decode(try Base64.decode(message.content, maxEncodedLength: ProtocolLimits.maxContentBase64Length))
}

/// The recipient device ids of a DM or SKD envelope.
func recipientDevices(of message: ServerMessage) throws -> Set<DeviceID> {
    switch try envelope(of: message) {
    case .dm(let dm): Set(dm.recipients.map { DeviceID($0.recipientDevice.text) })
    case .senderKeyDistribution(let skd): Set(skd.recipients.map { DeviceID($0.recipientDevice.text) })
    case .group: []
    }
}

/// What a user does in the app before the tests below start: accepting channels and approving
/// devices it was shown (docs/spec/protocol.md §5.9–§5.12). Suites about other things use it so
/// that their devices talk freely; the recipient suites never do.
extension MessagingHarness {
    /// Each of `accounts` approves every device of the others (and of its own user) ahead of
    /// time — as the app does when the user approves what it was shown.
    func trust(_ accounts: [Account]) async throws {
        for account in accounts {
            let devices = accounts.filter { $0.deviceID != account.deviceID }.map { (userID: $0.userID.rawValue, deviceID: $0.deviceID.rawValue) }
            try await account.store.write { db in
                try account.store.recipientStore.storeKnownDevices(devices, at: StoreTime(microseconds: 0), db)
                try account.store.recipientStore.confirmKnownDevices(devices.map(\.deviceID), db)
            }
        }
    }

    /// The DM `from` opens with `to`, accepted on `to`'s device (opening it there too).
    func acceptedDM(_ from: Account, _ to: Account) async throws -> ChatChannel {
        let dm = try await from.openDirectMessage(with: to.userID)
        try await accept(dm, on: [to], between: (from.userID, to.userID))
        return dm
    }

    /// Each of `accounts` accepts `channel` as its user would: a DM by opening it with the other
    /// participant (`between` names both), a group by accepting the request.
    func accept(_ channel: ChatChannel, on accounts: [Account], between users: (UserID, UserID)? = nil) async throws {
        for account in accounts {
            if channel.isDM, let users {
                _ = try await account.openDirectMessage(with: account.userID == users.0 ? users.1 : users.0)
            } else if !channel.isDM {
                _ = try await account.acceptChannel(channel.id)
            }
        }
    }
}
