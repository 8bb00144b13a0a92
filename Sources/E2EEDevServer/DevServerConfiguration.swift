/// Everything a dev server is started with. The defaults are the reference server's: port 8000,
/// every quirk on, the rate limit on, 15-minute access tokens, 7-day refresh tokens, 30-second
/// tickets and a ping every 20 s.
public struct DevServerConfiguration: Sendable {
    /// The per-IP rate limit: a fixed window from the first request, 4xx responses included.
    public struct RateLimit: Sendable, Equatable {
        /// Requests allowed per window.
        public var requests: Int
        /// The window length.
        public var window: Duration
        /// The wait a 429 asks for, sent as `Retry-After` in whole seconds (rounded up).
        public var retryAfter: Duration

        /// Creates a rate limit (reference: 300 requests per fixed 60 s window, `Retry-After: 10`).
        public init(requests: Int = 300, window: Duration = .seconds(60), retryAfter: Duration = .seconds(10)) {
            self.requests = requests
            self.window = window
            self.retryAfter = retryAfter
        }

        /// The `Retry-After` header's value: ``retryAfter`` in whole seconds, rounded up, at least 0.
        var retryAfterHeader: String {
            let (seconds, attoseconds) = retryAfter.components
            return String(max(0, seconds + (attoseconds > 0 ? 1 : 0)))
        }
    }

    /// The address to bind (`127.0.0.1` by default; tests keep it on loopback).
    public var host: String
    /// The port to bind; `0` picks a free port (read it from ``RunningDevServer/port``).
    public var port: Int
    /// The SQLite file to keep state in, or `nil` for an in-memory database.
    public var databasePath: String?
    /// The quirk switches.
    public var quirks: DevServerQuirks
    /// The rate limit, or `nil` for none.
    public var rateLimit: RateLimit?
    /// How long an access token is accepted.
    public var accessTokenLifetime: Duration
    /// How long a refresh token lives (sliding: each refresh starts a new one).
    public var refreshTokenLifetime: Duration
    /// How long a WebSocket ticket is valid.
    public var ticketLifetime: Duration
    /// The interval between protocol pings on each socket.
    public var pingInterval: Duration
    /// A bundle fetch of a list this long or shorter sends `keys.low_otp` to the owner, with
    /// `remaining` = list length − 1 (docs/spec/server-api.md §13; reference: 10).
    public var lowOneTimePreKeyThreshold: Int
    /// When `false`, `POST /auth/register` answers 403 (a closed or invite-only server).
    public var registrationOpen: Bool
    /// The status for a request without a bearer header: 401 (current) or 403 (older versions).
    public var missingBearerStatus: Int
    /// The domain users are looked up under (`GET /users/lookup?identity=user@domain`).
    public var serverDomain: String
    /// The clock for token, ticket and message times.
    public var clock: DevServerClock
    /// Whether to log each request (off for tests).
    public var logRequests: Bool

    /// Creates a configuration; see the type's documentation for the defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8000,
        databasePath: String? = nil,
        quirks: DevServerQuirks = .reference,
        rateLimit: RateLimit? = RateLimit(),
        accessTokenLifetime: Duration = .seconds(15 * 60),
        refreshTokenLifetime: Duration = .seconds(7 * 24 * 3600),
        ticketLifetime: Duration = .seconds(30),
        pingInterval: Duration = .seconds(20),
        lowOneTimePreKeyThreshold: Int = 10,
        registrationOpen: Bool = true,
        missingBearerStatus: Int = 401,
        serverDomain: String = "localhost",
        clock: DevServerClock = .system(),
        logRequests: Bool = false
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.quirks = quirks
        self.rateLimit = rateLimit
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.ticketLifetime = ticketLifetime
        self.pingInterval = pingInterval
        self.lowOneTimePreKeyThreshold = lowOneTimePreKeyThreshold
        self.registrationOpen = registrationOpen
        self.missingBearerStatus = missingBearerStatus
        self.serverDomain = serverDomain
        self.clock = clock
        self.logRequests = logRequests
    }

    /// A configuration for in-process tests: loopback, port 0, in-memory, no rate limit.
    public static func testing(
        quirks: DevServerQuirks = .none,
        clock: DevServerClock = .system()
    ) -> DevServerConfiguration {
        DevServerConfiguration(port: 0, quirks: quirks, rateLimit: nil, clock: clock)
    }
}
