/// Opens realtime connections; a transport (WebSocket client, URLSession) implements it.
public protocol RealtimeConnecting: Sendable {
    /// Connects with a single-use `ticket` (from ``ChatServerAPI/webSocketTicket()``).
    /// - Throws: ``ServerError/forbidden(detail:)`` when the handshake is refused (bad,
    ///   expired or reused ticket), ``ServerError/rateLimited(retryAfter:)``, or
    ///   ``ServerError/transport(_:)``.
    func connect(ticket: String) async throws -> any RealtimeConnection
}

/// One open realtime connection.
public protocol RealtimeConnection: Sendable {
    /// Everything the connection reports, ending with one ``RealtimeUpdate/closed(_:)``.
    var updates: AsyncStream<RealtimeUpdate> { get }
    /// Sends `{"type":"subscribe","channel_id"}`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    func subscribe(channelID: String) async throws
    /// Sends `typing.start` or `typing.stop`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    func sendTyping(channelID: String, started: Bool) async throws
    /// Closes cleanly (a close frame); the updates end with ``RealtimeCloseReason/closedByClient``.
    func close() async
}
