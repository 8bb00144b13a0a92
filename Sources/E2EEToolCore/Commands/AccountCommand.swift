import ArgumentParser
import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation

/// `e2ee-tool account register|login|logout|logout-all`.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Register, log in (a new device and store) or log out.",
        subcommands: [Register.self, Login.self, Logout.self, LogoutAll.self]
    )

    /// `account register`: a new user and its first device, in a new store.
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a new user (its first device) and create its store.",
            discussion: "Needs --server and --username; the password comes from E2EE_PASSWORD or a prompt.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var device: NewDeviceOptions

        @Flag(name: .long, help: "Create the user key: this device becomes its primary (protocol text 1.3; its primary file lies beside the store).")
        var userKey = false

        func run() async throws {
            try await NewDevice(options: options, device: device, userKey: userKey).run(registering: true)
        }
    }

    /// `account login`: a new device of an existing user, in a new store.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in as an existing user: a new device, in a new store.",
            discussion: "Needs --server and --username; the password comes from E2EE_PASSWORD or a prompt.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var device: NewDeviceOptions

        func run() async throws {
            try await NewDevice(options: options, device: device, userKey: false).run(registering: false)
        }
    }

    /// `account logout`: this device's session ends (keys and messages stay in the store).
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log this device out (its keys and messages stay in the store).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { try await $0.logout() }
            try context.console.result(LogoutResult(userID: opened.account.userID.rawValue, deviceID: opened.account.deviceID.rawValue, allDevices: false)) {
                "logged out device \(opened.account.deviceID)"
            }
        }
    }

    /// `account logout-all`: every session of the user ends, on every device.
    struct LogoutAll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "logout-all", abstract: "End every session of the user on every device.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { try await $0.logoutAll() }
            try context.console.result(LogoutResult(userID: opened.account.userID.rawValue, deviceID: opened.account.deviceID.rawValue, allDevices: true)) {
                "logged out every device of user \(opened.account.userID)"
            }
        }
    }
}

/// Options of a command that makes a new device (and store).
struct NewDeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The device's name on the server (default: e2ee-tool on this host).", valueName: "name"))
    var deviceName: String?

    @Option(name: .long, help: "Argon2id cost of a new store's passphrase key: moderate (256 MiB, the default) or interactive (64 MiB).")
    var kdf: KDFProfile = .moderate
}

/// The Argon2id profiles a new store can use.
enum KDFProfile: String, ExpressibleByArgument, CaseIterable, Sendable {
    case moderate, interactive

    var parameters: Argon2id.Parameters {
        switch self {
        case .moderate: .moderate
        case .interactive: .interactive
        }
    }
}

/// Register or log in: a new device of the user in a new (or empty) store.
private struct NewDevice {
    let options: GlobalOptions
    let device: NewDeviceOptions
    /// `--user-key`: register with linking on.
    let userKey: Bool

    func run(registering: Bool) async throws {
        let context = ToolContext(options: options)
        guard let serverURL = try context.options.serverURL() else { throw ToolError(.usage, "--server is required") }
        guard let username = options.username, !username.isEmpty else { throw ToolError(.usage, "--username is required") }
        let url = context.locations.forNewAccount(explicit: options.store, serverURL: serverURL, username: username)
        let existed = FileManager.default.fileExists(atPath: url.path)
        let (store, passphrase) = try openOrCreate(url, existed: existed, context: context)
        do {
            var configuration = AccountConfiguration()
            configuration.primaryFileKeychain = PassphrasePrimaryFileKeychain(passphrase: passphrase,
                                                                              parameters: try await store.passphraseParameters() ?? .moderate)
            configuration.linking = userKey ? .on : .off
            let password = try context.secrets.password()
            let session = AuthSession(keyStore: store, serverURL: serverURL)
            let server = HTTPChatServer(baseURL: serverURL, session: session, client: ToolHTTPClient.shared, timeout: ToolHTTPClient.requestTimeout)
            let name = device.deviceName ?? "e2ee-tool on \(ProcessInfo.processInfo.hostName)"
            context.logger.debug(registering ? "registering" : "logging in", metadata: ["server": "\(serverURL)", "username": "\(username)"])
            let account = registering
                ? try await Account.register(username: username, password: password, deviceName: name, server: server, store: store,
                                             configuration: configuration)
                : try await Account.login(username: username, password: password, deviceName: name, server: server, store: store,
                                          configuration: configuration)
            // A login that found a current certificate on another own device must be linked
            // before it sends (docs/spec/protocol.md §10.24): said here, not at the first send.
            let mustLink = (try? await account.ownUserKey().role) == .unlinked
            await account.shutdown()
            try? store.close()
            let result = NewDeviceResult(userID: account.userID.rawValue, deviceID: account.deviceID.rawValue, server: serverURL, store: url.path,
                                         mustLink: mustLink)
            try context.console.result(result) {
                """
                \(registering ? "registered" : "logged in as") \(username): user \(account.userID), device \(account.deviceID)
                store: \(url.path)\(userKey ? "\nuser key created: this device is its primary (epoch 1); the certificate goes out with keys bootstrap" : "")\(mustLink ? "\nthis account has a user key: link this device to the primary (e2ee-tool link start) before it sends" : "")
                next: e2ee-tool keys bootstrap --store \(url.path)
                """
            }
        } catch {
            try? store.close()
            if !existed { Self.remove(url) }
            throw error
        }
    }

    /// The store at `url`: opened when it exists (it must not hold a device yet), else created
    /// with a passphrase asked twice at a prompt.
    private func openOrCreate(_ url: URL, existed: Bool, context: ToolContext) throws -> (KeyStore, SecretBytes) {
        if !existed {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let passphrase = try context.secrets.passphrase(confirm: !existed)
        if !existed { context.console.progress("creating the store (deriving its key)…") }
        do {
            let store = try KeyStore.open(at: url, passphrase: passphrase, parameters: device.kdf.parameters)
            if !existed { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
            return (store, passphrase)
        } catch KeyStoreError.wrongKey {
            throw ToolError(.wrongPassphrase, "wrong passphrase for the store at \(url.path) (nothing was changed)")
        } catch {
            if !existed { Self.remove(url) }
            throw ErrorClassifier.classify(error)
        }
    }

    /// Removes a store this command created and could not finish.
    private static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", ".primary"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }
}

/// `account register|login` as JSON.
struct NewDeviceResult: Encodable {
    let userID: String
    let deviceID: String
    let server: String
    let store: String
    /// Whether this login must be linked to the primary before it sends (§10.24).
    let mustLink: Bool
    enum CodingKeys: String, CodingKey { case userID = "user_id", deviceID = "device_id", server, store, mustLink = "must_link" }
}

/// `account logout|logout-all` as JSON.
struct LogoutResult: Encodable {
    let userID: String
    let deviceID: String
    let allDevices: Bool
    enum CodingKeys: String, CodingKey { case userID = "user_id", deviceID = "device_id", allDevices = "all_devices" }
}
