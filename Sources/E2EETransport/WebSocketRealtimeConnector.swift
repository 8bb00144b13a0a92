import E2EEMessaging
import HummingbirdWSClient
import Logging

/// ``RealtimeConnecting`` over hummingbird-project's swift-websocket client.
public struct WebSocketRealtimeConnector: RealtimeConnecting {
    private let webSocketURL: String
    private let pingInterval: Duration?

    /// A connector for `webSocketURL` (`ws://host:port/ws`). The server pings every 20 s and
    /// the client answers; with `pingInterval` the client also pings, and a connection whose
    /// pong does not come back in that time is closed (reported as lost).
    public init(webSocketURL: String, pingInterval: Duration? = nil) {
        self.webSocketURL = webSocketURL
        self.pingInterval = pingInterval
    }

    /// Opens `/ws?ticket=…` and returns once the handshake succeeded.
    /// - Throws: ``ServerError/forbidden(detail:)`` when the server refuses the upgrade (a bad,
    ///   expired or reused ticket answers 403; the client library does not expose the status,
    ///   so a 429 is reported the same way), ``ServerError/transport(_:)`` when no connection
    ///   could be made.
    public func connect(ticket: String) async throws -> any RealtimeConnection {
        var configuration = WebSocketClientConfiguration()
        configuration.autoPing = pingInterval.map { .enabled(timePeriod: $0) } ?? .disabled
        let url = webSocketURL + "?ticket=" + HTTPRequester.queryEncoded(ticket)
        let connection = WebSocketRealtimeConnection()
        try await connection.start(url: url, configuration: configuration)
        return connection
    }
}
