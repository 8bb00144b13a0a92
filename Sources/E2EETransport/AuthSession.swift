import E2EECrypto
import E2EEKeyStore
import E2EEMessaging

/// The authentication session: holds the tokens, persists them (sealed) in the key store
/// *before* a new refresh token is used, runs at most one refresh at a time, and ends the
/// session cleanly (tokens wiped, keys kept) when a refresh is refused.
///
/// The reference server answers a refresh before its rotation is committed, so a refresh token
/// used right after it was issued is sometimes refused (docs/spec/server-api.md §1). A 401 on a
/// refresh that starts within ``RefreshRetry/window`` of the last successful one is therefore
/// retried once after ``RefreshRetry/pause``; only a second refusal ends the session.
public actor AuthSession {
    /// When a refused refresh is retried.
    public struct RefreshRetry: Sendable {
        /// A refresh starting this soon after a successful one is retried once when refused.
        public var window: Duration
        /// How long to wait before the retry.
        public var pause: Duration
        /// Waits (inject to test).
        public var sleep: @Sendable (Duration) async throws -> Void

        /// Creates a policy (defaults: a 10 s window, a 500 ms pause, `Task.sleep`).
        public init(window: Duration = .seconds(10), pause: Duration = .milliseconds(500),
                    sleep: (@Sendable (Duration) async throws -> Void)? = nil) {
            self.window = window
            self.pause = pause
            self.sleep = sleep ?? { try await Task.sleep(nanoseconds: $0.nanoseconds) }
        }
    }

    /// How the session last ended, if it did.
    public enum Outcome: Sendable, Equatable {
        /// Tokens are held.
        case active
        /// No tokens yet (never logged in).
        case loggedOut
        /// A refresh was refused: tokens wiped, keys kept; log in again.
        case ended
    }

    private let keyStore: KeyStore?
    private let serverURL: String
    private var accessToken: String?
    private var refreshToken: String?
    private var refreshInFlight: Task<Void, any Error>?
    private let refreshRetry: RefreshRetry
    private var lastRefresh: ContinuousClock.Instant?
    /// The session state.
    public private(set) var outcome: Outcome
    /// How many refreshes this session has run (successful or not).
    public private(set) var refreshCount = 0

    /// A session persisting to `keyStore` (nil: memory only) for the server at `serverURL`.
    /// - Parameters:
    ///   - keyStore: where the tokens are persisted (sealed), or nil for memory only.
    ///   - serverURL: the server's base URL, saved with the tokens.
    ///   - refreshRetry: when a refused refresh is retried (see the type's notes).
    public init(keyStore: KeyStore?, serverURL: String, refreshRetry: RefreshRetry = RefreshRetry()) {
        self.keyStore = keyStore
        self.serverURL = serverURL
        self.refreshRetry = refreshRetry
        self.outcome = .loggedOut
    }

    /// A session restored from the tokens saved in `keyStore`.
    /// - Throws: `E2EEKeyStore.KeyStoreError` or GRDB's `DatabaseError` when loading fails.
    public static func restored(from keyStore: KeyStore) async throws -> AuthSession {
        let account = try await keyStore.loadAccount()
        let session = AuthSession(keyStore: keyStore, serverURL: account?.serverURL ?? "")
        if let account, let access = account.accessToken, let refresh = account.refreshToken {
            await session.setTokens(access: String(decoding: access.unprotectedCopy(), as: UTF8.self),
                                    refresh: String(decoding: refresh.unprotectedCopy(), as: UTF8.self))
        }
        return session
    }

    /// Whether tokens are held.
    public var isLoggedIn: Bool { accessToken != nil }

    /// Persists then adopts `tokens` (from register, login or refresh).
    /// - Throws: the key store's errors; the tokens are not adopted then.
    public func adopt(_ tokens: TokenResponse) async throws {
        if let keyStore {
            let access = SecretBytes(copying: Array(tokens.accessToken.utf8))
            let refresh = SecretBytes(copying: Array(tokens.refreshToken.utf8))
            let account = try await keyStore.loadAccount()
            if let account, account.userID == tokens.userID.rawValue, account.deviceID == tokens.deviceID.rawValue {
                try await keyStore.storeTokens(access: access, refresh: refresh, at: .now())
            } else {
                try await keyStore.storeAccount(AccountRecord(serverURL: serverURL, userID: tokens.userID.rawValue, deviceID: tokens.deviceID.rawValue,
                                                        accessToken: access, refreshToken: refresh, updatedAt: .now()))
            }
        }
        setTokens(access: tokens.accessToken, refresh: tokens.refreshToken)
    }

    /// The access token to use.
    /// - Throws: `E2EEMessaging.ServerError.notLoggedIn` or `E2EEMessaging.ServerError.sessionEnded`.
    public func currentAccessToken() throws -> String {
        guard let accessToken else { throw outcome == .ended ? ServerError.sessionEnded : ServerError.notLoggedIn }
        return accessToken
    }

    /// The refresh token held, if any.
    func currentRefreshToken() -> String? { refreshToken }

    /// Refreshes after `failedAccessToken` was refused; concurrent callers share one refresh,
    /// and a caller whose token was already replaced returns at once.
    /// - Throws: ``E2EEMessaging/ServerError/sessionEnded`` when the refresh is refused
    ///   (tokens wiped), or the refresh's transport error (tokens kept).
    func refresh(after failedAccessToken: String, using call: @escaping @Sendable (String) async throws -> TokenResponse) async throws {
        if let refreshInFlight { return try await refreshInFlight.value }
        guard accessToken == failedAccessToken else {
            if accessToken == nil { throw ServerError.sessionEnded }
            return
        }
        guard let refreshToken else { throw ServerError.sessionEnded }
        refreshCount += 1
        let retry = refreshRetry
        let followsRefresh = lastRefresh.map { ContinuousClock.now - $0 < retry.window } ?? false
        let task = Task<Void, any Error> {
            do {
                let tokens: TokenResponse
                do {
                    tokens = try await call(refreshToken)
                } catch let error as ServerError where error.isUnauthenticated && followsRefresh {
                    // The token may not be committed yet on the server: once more, a moment later.
                    try await retry.sleep(retry.pause)
                    tokens = try await call(refreshToken)
                }
                try await self.adopt(tokens)
                self.noteRefreshed()
            } catch let error as ServerError where error.isUnauthenticated || error == .sessionEnded {
                await self.end()
                throw ServerError.sessionEnded
            }
        }
        refreshInFlight = task
        defer { refreshInFlight = nil }
        try await task.value
    }

    private func noteRefreshed() { lastRefresh = .now }

    /// Ends the session: tokens wiped in memory and in the key store (keys are kept).
    public func end() async {
        await wipe()
        outcome = .ended
    }

    /// Wipes the tokens after a logout (the session can log in again).
    func wipe() async {
        accessToken = nil
        refreshToken = nil
        outcome = .loggedOut
        if let keyStore { try? await keyStore.storeTokens(access: nil, refresh: nil, at: .now()) }
    }

    private func setTokens(access: String, refresh: String) {
        accessToken = access
        refreshToken = refresh
        outcome = .active
    }
}
