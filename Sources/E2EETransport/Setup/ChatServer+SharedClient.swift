import AsyncHTTPClient
import NIOCore

extension ChatServer {
    /// The HTTP client ``ChatServer`` and ``HTTPChatServer`` send through unless given one:
    /// process-wide, on the shared event loop group, never shut down, configured with
    /// ``clientConfiguration()``.
    public static let sharedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration())

    /// The configuration an app's own `HTTPClient` for the chat server should start from.
    ///
    /// A refused connection fails its request at once (`retryConnectionEstablishment` off)
    /// instead of AsyncHTTPClient's default of retrying the connection, with a backoff that
    /// grows to many seconds, until the request's deadline: with the default, a call against a
    /// server that is down waits the whole deadline, and once the backoff has grown, the first
    /// connection after the server's return is only tried seconds later — the connection
    /// supervisor's health check and the next attempt wait behind it. The account's own
    /// schedules (the outbox's, the supervisor's health checks and backoff) decide when to try
    /// again. Connecting gives up after 10 seconds.
    public static func clientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10))
        return configuration
    }
}
