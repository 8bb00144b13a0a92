import AsyncHTTPClient
import E2EETransport
import NIOCore

/// The tool's one HTTP client, from `ChatServer.clientConfiguration()`: it does not keep retrying
/// a connection the server refuses until the request times out: a command run against a server that is down
/// ends at once with `serverUnreachable` (4). Connecting gives up after 10 seconds, a request
/// after 30.
enum ToolHTTPClient {
    /// Process-wide and never shut down: the tool exits when its command ends.
    static let shared = makeClient()

    /// A client of its own (the demo shuts its client down before its in-process server, so
    /// the server's graceful shutdown does not wait for idle keep-alive connections).
    static func makeClient() -> HTTPClient {
        var configuration = ChatServer.clientConfiguration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// How long one request may take in all.
    static let requestTimeout: TimeAmount = .seconds(30)
}
