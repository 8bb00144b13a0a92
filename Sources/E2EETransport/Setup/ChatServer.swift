import AsyncHTTPClient
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import NIOCore

/// One chat server, from one URL: the entry an app starts from. It derives the REST and
/// WebSocket addresses (``ServerAddress``), makes the authenticated client for each account
/// (``AuthSession`` keeping the tokens sealed in the account's store, ``HTTPChatServer``), and
/// returns accounts ready to send — registered or logged in with this device's keys published
/// — or reopened from their store. `Account.connect(to:policy:)` opens the realtime
/// connection at the derived WebSocket address.
///
/// ```swift
/// let server = try ChatServer(url: "https://chat.example.org")
/// let account: Account
/// if let existing = try await server.open(store: store) {
///     account = existing  // a later launch
/// } else {
///     account = try await server.register(username: "alice", password: password, deviceName: "phone", store: store)
/// }
/// await account.connect(to: server)
/// ```
public struct ChatServer: Sendable {
    /// The server's REST and WebSocket addresses.
    public let address: ServerAddress
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let sleep: @Sendable (Duration) async throws -> Void
    /// The keepalive and limits of every realtime connection made through ``realtime``.
    public let realtimeOptions: RealtimeConnectionOptions

    /// The server at `url` (`http(s)://host[:port]`).
    /// - Parameters:
    ///   - url: the server's URL, as the user or the app's configuration gives it.
    ///   - client: the AsyncHTTPClient REST calls go through (``sharedClient`` by default; an
    ///     app's own should start from ``clientConfiguration()``).
    ///   - timeout: the longest wait for one REST answer.
    ///   - realtimeOptions: the WebSocket keepalive and limits.
    ///   - sleep: waits a 429's `Retry-After` (inject to test).
    /// - Throws: ``ServerSetupError`` for a URL that is not `http(s)://host[:port]`.
    public init(url: String, client: HTTPClient = ChatServer.sharedClient, timeout: TimeAmount = .seconds(30),
                realtimeOptions: RealtimeConnectionOptions = .standard,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) throws(ServerSetupError) {
        self.address = try ServerAddress(url)
        self.client = client
        self.timeout = timeout
        self.realtimeOptions = realtimeOptions
        self.sleep = sleep
    }

    /// Registers a new user with its first device, over `store` (a new, empty store), and
    /// publishes this device's keys (`Account.bootstrapKeys(oneTimePrekeys:)`):
    /// the account can send and be written to when this returns.
    /// - Throws: `ServerError` (409 taken, 403 closed…), `MessagingError.storeBelongsToAnotherDevice`
    ///   when `store` is not new, key store errors. When the
    ///   keys could not be published the account is registered all the same: the next
    ///   ``open(store:configuration:)`` publishes them.
    public func register(username: String, password: String, deviceName: String, store: KeyStore,
                         configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account {
        let account = try await Account.register(username: username, password: password, deviceName: deviceName,
                                                 server: api(session: AuthSession(keyStore: store, serverURL: address.baseURL)),
                                                 store: store, configuration: configuration)
        _ = try await account.bootstrapKeys()
        return account
    }

    /// Logs in to an existing user as a new device, over `store` (a new, empty store), and
    /// publishes this device's keys: as ``register(username:password:deviceName:store:configuration:)``.
    /// - Throws: as ``register(username:password:deviceName:store:configuration:)`` (401 for a
    ///   wrong password).
    public func login(username: String, password: String, deviceName: String, store: KeyStore,
                      configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account {
        let account = try await Account.login(username: username, password: password, deviceName: deviceName,
                                              server: api(session: AuthSession(keyStore: store, serverURL: address.baseURL)),
                                              store: store, configuration: configuration)
        _ = try await account.bootstrapKeys()
        return account
    }

    /// The account `store` holds, signed in with the tokens saved there; `nil` when the store
    /// holds none yet (the first launch: register or log in). Keys that a registration could
    /// not publish are published now. Sending resumes where the last run stopped. Opens
    /// without the network, except to finish such a registration.
    /// - Throws: ``ServerSetupError/storeBelongsToAnotherServer(storedURL:)`` when the store's
    ///   account is on another server, key store errors, and `ServerError` only
    ///   when unpublished keys could not be published.
    public func open(store: KeyStore, configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account? {
        guard let record = try await store.loadAccount() else { return nil }
        guard (try? ServerAddress(record.serverURL)) == address else {
            throw ServerSetupError.storeBelongsToAnotherServer(storedURL: record.serverURL)
        }
        let account = try await Account.open(server: api(session: try await AuthSession.restored(from: store)), store: store,
                                             configuration: configuration)
        // A registration cut short before its keys were made or uploaded left no signed prekey:
        // without one nobody can write to this device, so publishing is part of opening. Keys
        // waiting for upload after a failed replenishment are retried here too, but that one
        // failing (offline) does not stop the open: maintenance retries it.
        if try await !store.signedPrekeys().contains(where: \.isCurrent) {
            _ = try await account.bootstrapKeys()
        } else if try await store.oneTimePrekeyCount(state: .pendingUpload) > 0 {
            _ = try? await account.bootstrapKeys()
        }
        return account
    }

    /// The realtime connector for this server's WebSocket address.
    public var realtime: WebSocketRealtimeConnector {
        WebSocketRealtimeConnector(webSocketURL: address.webSocketURL, options: realtimeOptions)
    }

    private func api(session: AuthSession) -> HTTPChatServer {
        HTTPChatServer(baseURL: address.baseURL, session: session, client: client, timeout: timeout, sleep: sleep)
    }
}

extension Account {
    /// Connects to `server`'s WebSocket address (``ChatServer/realtime``): as
    /// `connect(using:policy:)`, whose reconnects, polling and catch-ups it starts.
    public func connect(to server: ChatServer, policy: ConnectionPolicy = .standard) async {
        await connect(using: server.realtime, policy: policy)
    }
}
