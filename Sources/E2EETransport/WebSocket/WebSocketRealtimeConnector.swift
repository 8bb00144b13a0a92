import E2EEMessaging
import NIOSSL

/// `RealtimeConnecting` over a WebSocket client built on SwiftNIO (`NIOWebSocket`), with TLS
/// (`NIOSSL`) for `wss://` URLs.
///
/// It does not use swift-websocket's client: that client reports every refused upgrade as one
/// error without its status (so a 429 could not be told from a 403), hides pings and pongs from
/// its user, and its auto-ping closes after a single missed pong; docs/spec/sync.md's keepalive needs
/// all three.
public struct WebSocketRealtimeConnector: RealtimeConnecting {
    private let url: Result<WebSocketURL, ServerError>
    private let options: RealtimeConnectionOptions
    private let tls: TLSContextBox?

    /// A connector for `webSocketURL` (`ws://host:port/ws` or `wss://…`).
    /// - Parameters:
    ///   - webSocketURL: the realtime endpoint, `ws://host:port/ws` or `wss://…`.
    ///   - options: keepalive and limits (docs/spec/sync.md's by default).
    public init(webSocketURL: String, options: RealtimeConnectionOptions = .standard) {
        let url: Result<WebSocketURL, ServerError> = Result {
            try WebSocketURL(webSocketURL)
        }.mapError { $0 as? ServerError ?? .transport("invalid WebSocket URL") }
        self.url = url
        self.options = options
        tls = (try? url.get())?.secure == true ? TLSContextBox.makeClient() : nil
    }

    /// Opens `/ws?ticket=…` and returns once the upgrade succeeded.
    /// - Throws: the refused upgrade typed by its status — `ServerError.forbidden(detail:)`
    ///   (403: a bad, expired or reused ticket), `ServerError.rateLimited(retryAfter:)` (429,
    ///   `Retry-After` clamped to 0…300 s), `ServerError.server(status:body:)` (5xx, e.g. 503),
    ///   or another case of `ServerError.from(status:body:retryAfter:)`;
    ///   `ServerError.transport(_:)` when no connection or answer came in time.
    public func connect(ticket: String) async throws -> any RealtimeConnection {
        let base = try url.get()
        let separator = base.requestTarget.contains("?") ? "&" : "?"
        let target = base.requestTarget + separator + "ticket=" + HTTPRequester.queryEncoded(ticket)
        return try await WebSocketRealtimeConnection.open(base.with(requestTarget: target), options: options, tls: tls)
    }
}

/// The TLS client context (trust roots loaded once per connector).
final class TLSContextBox: Sendable {
    let context: NIOSSLContext

    private init(context: NIOSSLContext) {
        self.context = context
    }

    /// The system's default client configuration, or `nil` when it cannot be loaded (a `wss`
    /// connect then fails with a transport error).
    static func makeClient() -> TLSContextBox? {
        (try? NIOSSLContext(configuration: .makeClientConfiguration())).map(TLSContextBox.init)
    }
}
