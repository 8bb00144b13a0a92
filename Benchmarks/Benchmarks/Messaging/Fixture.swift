import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport

/// A development server and accounts on it, made in a benchmark's setup.
final class MessagingFixture {
    let server: RunningDevServer
    private(set) var accounts: [Account] = []
    private var userCount = 0

    private init(server: RunningDevServer) {
        self.server = server
    }

    /// A server with no rate limit and no quirks.
    static func start() async throws -> MessagingFixture {
        MessagingFixture(server: try await DevServer.start(configuration: .testing()))
    }

    /// A new user with `devices` devices, keys bootstrapped; returns the devices' accounts.
    func user(devices: Int) async throws -> [Account] {
        userCount += 1
        let name = "user\(userCount)"
        var made: [Account] = []
        for index in 0..<devices {
            let store = try KeyStore.inMemory()
            let client = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: store, serverURL: server.baseURL))
            let account = index == 0
                ? try await Account.register(username: name, password: "password123", deviceName: "d\(index)", server: client, store: store,
                                             configuration: Self.configuration)
                : try await Account.login(username: name, password: "password123", deviceName: "d\(index)", server: client, store: store,
                                          configuration: Self.configuration)
            _ = try await account.bootstrapKeys(oneTimePrekeys: 5)
            made.append(account)
        }
        accounts += made
        return made
    }

    /// Member and device lists cached for the whole run (the benchmark measures sending).
    static let configuration = AccountConfiguration(memberLifetime: .seconds(3_600), deviceLifetime: .seconds(3_600))

    /// Stops the server.
    func shutdown() async {
        for account in accounts { await account.shutdown() }
        await server.shutdown()
    }
}
