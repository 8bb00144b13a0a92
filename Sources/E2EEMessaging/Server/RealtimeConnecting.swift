/// Opens realtime connections; a transport (WebSocket client, URLSession) implements it.
public protocol RealtimeConnecting: Sendable {
    /// Connects with a single-use `ticket` (from ``ChatServerAPI/webSocketTicket()``).
    /// - Throws: a refused handshake maps its HTTP status through
    ///   ``ServerError/from(status:body:retryAfter:)``: ``ServerError/forbidden(detail:)`` (bad,
    ///   expired or reused ticket), ``ServerError/unauthenticated(detail:)``,
    ///   ``ServerError/rateLimited(retryAfter:)`` (429 with `Retry-After`),
    ///   ``ServerError/server(status:body:)`` (503 and other 5xx), and so on;
    ///   ``ServerError/transport(_:)`` when the server cannot be reached, the URL is invalid, TLS
    ///   is unavailable, or the handshake times out or breaks off.
    func connect(ticket: String) async throws -> any RealtimeConnection
}

/// One open realtime connection.
public protocol RealtimeConnection: Sendable {
    /// Everything the connection reports, ending with one ``RealtimeUpdate/closed(_:)``.
    var updates: AsyncStream<RealtimeUpdate> { get }
    /// Sends `{"type":"subscribe","channel_id"}`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    func subscribe(channelID: ChannelID) async throws
    /// Sends `typing.start` or `typing.stop`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    func sendTyping(channelID: ChannelID, started: Bool) async throws
    /// Closes cleanly (a close frame); the updates end with ``RealtimeCloseReason/closedByClient``.
    func close() async
}
