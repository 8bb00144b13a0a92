import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation

/// A development server on a free loopback port, a temporary folder for stores, and the built
/// tool run against both. The tool's data directory (XDG_DATA_HOME, HOME) is inside the
/// folder, so a test never touches the user's own.
struct ToolHarness: Sendable {
    /// The passphrase of every store the harness makes.
    static let passphrase = "correct horse battery staple"
    /// The password of every user the harness registers.
    static let password = "password123"

    let server: RunningDevServer
    let directory: URL

    /// Runs `body` against a fresh server and folder; both are always cleaned up.
    static func with<T: Sendable>(_ body: (ToolHarness) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-tool-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try await DevServer.start(configuration: .testing())
        let harness = ToolHarness(server: server, directory: directory)
        do {
            let result = try await body(harness)
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
            return result
        } catch {
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The environment of a tool run: secrets from variables (standard input is no terminal).
    func environment(passphrase: String? = ToolHarness.passphrase, password: String? = ToolHarness.password) -> [String: String] {
        var environment = ["HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path]
        environment["E2EE_STORE_PASSPHRASE"] = passphrase
        environment["E2EE_PASSWORD"] = password
        return environment
    }

    /// `e2ee-tool arguments…` with the harness's environment.
    func tool(_ arguments: String..., passphrase: String? = ToolHarness.passphrase, password: String? = ToolHarness.password) async throws -> ToolRun {
        try await ToolProcess.run(arguments, environment: environment(passphrase: passphrase, password: password), in: directory)
    }

    /// The store file for `name`.
    func storePath(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

    /// Registers `username` through the tool into its own store (cheap key derivation).
    func register(_ username: String, bootstrap: Bool = false) async throws -> ToolUser {
        let store = storePath(username)
        let run = try await tool("account", "register", "--server", server.baseURL, "--username", username, "--store", store,
                                 "--kdf", "interactive", "--json")
        guard run.status == 0 else { throw HarnessError.toolFailed(run.summary) }
        let json = try run.json()
        guard let userID = json["user_id"] as? String, let deviceID = json["device_id"] as? String else { throw HarnessError.toolFailed(run.summary) }
        let user = ToolUser(username: username, userID: userID, deviceID: deviceID, store: store)
        if bootstrap {
            let keys = try await tool("keys", "bootstrap", "--store", store)
            guard keys.status == 0 else { throw HarnessError.toolFailed(keys.summary) }
        }
        return user
    }

    /// alice and bob registered and bootstrapped through the tool, and the DM alice opened
    /// with bob.
    func pair() async throws -> (alice: ToolUser, bob: ToolUser, dm: String) {
        let alice = try await register("alice", bootstrap: true)
        let bob = try await register("bob", bootstrap: true)
        let dm = try await tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
        guard dm.status == 0, let channelID = try dm.json()["id"] as? String else { throw HarnessError.toolFailed(dm.summary) }
        // Bob accepts the conversation as his user would (a DM he did not open is a request).
        let accepted = try await tool("channels", "dm", alice.userID, "--store", bob.store, "--json")
        guard accepted.status == 0 else { throw HarnessError.toolFailed(accepted.summary) }
        return (alice, bob, channelID)
    }

    /// Starts `e2ee-tool arguments…` as a long-running process whose output the test reads live.
    func start(_ arguments: String...) throws -> LiveToolProcess {
        try LiveToolProcess(arguments, environment: environment(), in: directory)
    }

    /// Like ``start(_:)``, with a standard input the test types into.
    func startTyping(_ arguments: String...) throws -> LiveToolProcess {
        try LiveToolProcess(arguments, environment: environment(), in: directory, typing: true)
    }

    /// Opens the account in a store the tool made, in the test process (a sender that posts
    /// many messages without a process launch each); ``InProcessAccount/close()`` ends it.
    func openInProcess(_ user: ToolUser) async throws -> InProcessAccount {
        let store = try KeyStore.open(at: URL(fileURLWithPath: user.store), passphrase: SecretBytes(copying: Array(Self.passphrase.utf8)))
        do {
            let http = HTTPChatServer(baseURL: server.baseURL, session: try await AuthSession.restored(from: store), sleep: { _ in })
            return InProcessAccount(account: try await Account.open(server: http, store: store), store: store)
        } catch {
            try? store.close()
            throw error
        }
    }

    /// A client of the server logged in as `username` on a new, memory-only device (to read
    /// what the server holds, or to fetch bundles as another client would).
    func client(loggingInAs username: String) async throws -> HTTPChatServer {
        let http = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL), sleep: { _ in })
        _ = try await http.login(username: username, password: Self.password, deviceName: "probe")
        return http
    }

    /// A fresh user's client (not a member of anything).
    func observer() async throws -> HTTPChatServer {
        let http = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL), sleep: { _ in })
        _ = try await http.register(username: "observer\(Int.random(in: 1000...9999))", password: Self.password, deviceName: "probe")
        return http
    }
}

/// A user the tool registered.
struct ToolUser: Sendable {
    let username: String
    let userID: String
    let deviceID: String
    let store: String
}

/// An account opened in the test process over a tool's store.
struct InProcessAccount: Sendable {
    let account: Account
    let store: KeyStore

    /// Queues `texts` in order, then waits until the outbox posted them all.
    /// - Throws: ``HarnessError/toolFailed(_:)`` when one was not sent.
    func send(_ texts: [String], to channelID: String) async throws {
        var localIDs: [OutboxEntryID] = []
        for text in texts { localIDs.append(try await account.send(text: text, to: ChannelID(channelID)).localID) }
        await account.waitForOutbox()
        let unsent = try await account.outboxEntries(states: [.queued, .sending, .failed]).filter { localIDs.contains($0.localID) }
        guard unsent.isEmpty else { throw HarnessError.toolFailed("\(unsent.count) of \(texts.count) messages were not sent") }
    }

    /// Stops the account and closes the store.
    func close() async {
        await account.shutdown()
        try? store.close()
    }
}

/// A tool run the harness needed did not succeed.
enum HarnessError: Error, CustomStringConvertible {
    case toolFailed(String)
    var description: String {
        switch self {
        case .toolFailed(let summary): "a set-up run of e2ee-tool failed:\n\(summary)"
        }
    }
}
