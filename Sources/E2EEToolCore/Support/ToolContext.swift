import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Logging

/// What a command runs with: its options, output, logger, environment, and the ways to open
/// a store and an account.
struct ToolContext: Sendable {
    let options: Settings
    let console: Console
    let logger: Logger
    let environment: [String: String]

    /// The global options as plain values.
    struct Settings: Sendable {
        let store: String?
        let server: String?
        let username: String?

        /// The server URL normalised (`http://host:port`).
        func serverURL() throws -> String? { try server.map(ServerOption.normalise) }
    }

    init(options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        ToolLogging.bootstrap(verbose: options.verbose)
        self.options = Settings(store: options.store, server: options.server, username: options.username)
        self.console = Console(json: options.json)
        self.logger = ToolLogging.logger()
        self.environment = environment
    }

    var locations: StoreLocation { StoreLocation(environment: environment) }
    var secrets: SecretInput { SecretInput(environment: environment) }

    /// Opens the existing store the options name.
    /// - Throws: ``ToolError`` (not found, usage, wrong passphrase…).
    func openExistingStore() throws -> (KeyStore, URL) {
        let (store, url, _) = try openExistingStoreWithPassphrase()
        return (store, url)
    }

    /// Opens the existing store the options name, and gives back its passphrase (the primary
    /// file's key is derived from it, under its own salt).
    /// - Throws: as ``openExistingStore()``.
    func openExistingStoreWithPassphrase() throws -> (KeyStore, URL, SecretBytes) {
        let url = try locations.existing(explicit: options.store, serverURL: try options.serverURL(), username: options.username)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ToolError(.notFound, "no store at \(url.path): run account register or account login first, or pass --store")
        }
        logger.debug("opening store", metadata: ["path": "\(url.path)"])
        let passphrase = try secrets.passphrase(confirm: false)
        do {
            return (try KeyStore.open(at: url, passphrase: passphrase), url, passphrase)
        } catch KeyStoreError.wrongKey {
            throw ToolError(.wrongPassphrase, "wrong passphrase for the store at \(url.path) (nothing was changed)")
        } catch {
            throw ErrorClassifier.classify(error)
        }
    }

    /// Opens the account in the existing store, talking to the server recorded in it.
    /// - Throws: ``ToolError``, ``MessagingError/noAccount`` and the layers' errors.
    func openAccount(configuration: AccountConfiguration = AccountConfiguration()) async throws -> OpenedAccount {
        try await openAccount(configuration: configuration, in: try openExistingStoreWithPassphrase())
    }

    /// Opens the account in a store ``openExistingStoreWithPassphrase()`` opened (closed again
    /// on failure).
    /// - Throws: as ``openAccount(configuration:)``.
    func openAccount(configuration: AccountConfiguration, in opened: (KeyStore, URL, SecretBytes)) async throws -> OpenedAccount {
        let (store, url, passphrase) = opened
        var keyed = configuration
        do {
            #if DEBUG
            keyed.debugClockOffset = .seconds(try testClockOffset())
            keyed.debugCrash = try testCrashHook()
            keyed.debugTransferRecordsPerChunk = try testChunkRecords()
            keyed.debugReceiveRowsPerCommit = try testReceiveRowsPerCommit()
            #endif
            if keyed.primaryFileKeychain == nil {
                keyed.primaryFileKeychain = PassphrasePrimaryFileKeychain(passphrase: passphrase, parameters: try await store.passphraseParameters() ?? .moderate)
            }
            guard let record = try await store.loadAccount() else { throw MessagingError.noAccount }
            if let wanted = try options.serverURL(), wanted != record.serverURL {
                throw ToolError(.usage, "the store at \(url.path) belongs to \(record.serverURL), not \(wanted)")
            }
            let session = try await AuthSession.restored(from: store)
            let server = HTTPChatServer(baseURL: record.serverURL, session: session, client: ToolHTTPClient.shared, timeout: ToolHTTPClient.requestTimeout)
            logger.debug("opening account", metadata: ["server": "\(record.serverURL)", "user": "\(record.userID)", "device": "\(record.deviceID)"])
            let account = try await Account.open(server: server, store: store, configuration: keyed)
            return OpenedAccount(account: account, store: store, storeURL: url, serverURL: record.serverURL, session: session)
        } catch {
            try? store.close()
            throw error
        }
    }
}

#if DEBUG
extension ToolContext {
    /// Debug builds only: `E2EE_TEST_CLOCK_OFFSET`, whole seconds (negative: back), moves the
    /// clock text 1.3's certificate rules read (docs/spec/protocol.md §10.19) for tests. Release
    /// builds never read it.
    /// - Throws: ``ToolError`` (usage) when it is set but not a whole number of seconds.
    func testClockOffset() throws -> Int64 {
        guard let text = environment["E2EE_TEST_CLOCK_OFFSET"], !text.isEmpty else { return 0 }
        guard let seconds = Int64(text), seconds.magnitude <= 10 * 365 * 86_400 else {
            throw ToolError(.usage, "E2EE_TEST_CLOCK_OFFSET must be whole seconds, at most ten years either way")
        }
        return seconds
    }

    /// Debug builds only: `E2EE_TEST_CHUNK_RECORDS=<n>` puts at most `n` records in each chunk
    /// of a transfer this primary sends, so a test account fills several chunks. Release builds
    /// never read it.
    /// - Throws: ``ToolError`` (usage) when it is set but not a positive whole number.
    func testChunkRecords() throws -> Int? {
        guard let text = environment["E2EE_TEST_CHUNK_RECORDS"], !text.isEmpty else { return nil }
        guard let count = Int(text), count > 0 else { throw ToolError(.usage, "E2EE_TEST_CHUNK_RECORDS must be a positive whole number") }
        return count
    }

    /// Debug builds only: `E2EE_TEST_RECEIVE_COMMIT_ROWS=<n>`, at most n received rows in one
    /// transaction (the receive commit window's row bound). Release builds never read it.
    /// - Throws: ``ToolError`` (usage) when it is set but not a positive whole number.
    func testReceiveRowsPerCommit() throws -> Int? {
        guard let text = environment["E2EE_TEST_RECEIVE_COMMIT_ROWS"], !text.isEmpty else { return nil }
        guard let count = Int(text), count > 0 else { throw ToolError(.usage, "E2EE_TEST_RECEIVE_COMMIT_ROWS must be a positive whole number") }
        return count
    }

    /// Debug builds only: `E2EE_TEST_CRASH_AT=<point>` (a ``TestCrashPoint`` name) kills the
    /// process with SIGKILL when the account reaches that point, as a crash or a pulled battery
    /// would. Release builds never read it.
    /// - Throws: ``ToolError`` (usage) when it names no known point.
    func testCrashHook() throws -> (@Sendable (TestCrashPoint) -> Void)? {
        guard let name = environment["E2EE_TEST_CRASH_AT"], !name.isEmpty else { return nil }
        guard let wanted = TestCrashPoint(rawValue: name) else {
            throw ToolError(.usage, "E2EE_TEST_CRASH_AT names no crash point (\(TestCrashPoint.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return { point in
            guard point == wanted else { return }
            kill(getpid(), SIGKILL)
        }
    }
}
#endif

/// An account opened by a command; ``close()`` stops its work and closes the store.
struct OpenedAccount: Sendable {
    let account: Account
    let store: KeyStore
    let storeURL: URL
    let serverURL: String
    let session: AuthSession

    /// Runs `body`, then closes whatever happened.
    func using<T: Sendable>(_ body: (Account) async throws -> T) async throws -> T {
        do {
            let result = try await body(account)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// Stops the account's work and closes the store.
    func close() async {
        await account.shutdown()
        try? store.close()
    }
}
