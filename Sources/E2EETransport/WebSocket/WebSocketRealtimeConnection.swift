import E2EEMessaging
import Foundation

/// One WebSocket connection: messages decoded into `RealtimeUpdate`s (a message that does not
/// decode is reported and the stream goes on), outgoing frames written in order, the keepalive
/// of ``RealtimeConnectionOptions``, and a single final `RealtimeUpdate.closed(_:)` saying why
/// it ended: our close, the server's close frame (code and reason), or a lost connection
/// (socket dropped, keepalive expired, a frame over the limit).
public final class WebSocketRealtimeConnection: RealtimeConnection {
    /// Everything the connection reports, ending with one `RealtimeUpdate.closed(_:)`.
    public let updates: AsyncStream<RealtimeUpdate>
    private let updateSink: AsyncStream<RealtimeUpdate>.Continuation
    private let outgoing: AsyncStream<OutboundFrame>
    private let outgoingSink: AsyncStream<OutboundFrame>.Continuation
    private let state: SessionState

    private init(options: RealtimeConnectionOptions) {
        (updates, updateSink) = AsyncStream.makeStream(of: RealtimeUpdate.self)
        (outgoing, outgoingSink) = AsyncStream.makeStream(of: OutboundFrame.self)
        state = SessionState(options: options)
    }

    /// Performs the handshake and starts the connection.
    /// - Throws: what ``WebSocketHandshake/connect(to:options:tls:)`` throws.
    static func open(_ url: WebSocketURL, options: RealtimeConnectionOptions, tls: TLSContextBox?) async throws -> WebSocketRealtimeConnection {
        let channel = try await WebSocketHandshake.connect(to: url, options: options, tls: tls?.context)
        let connection = WebSocketRealtimeConnection(options: options)
        let session = WebSocketFrameSession(channel: channel, options: options, state: connection.state,
                                            updates: connection.updateSink, outgoing: connection.outgoing,
                                            send: connection.outgoingSink)
        let updateSink = connection.updateSink
        let outgoingSink = connection.outgoingSink
        Task {
            let reason = await session.run()
            outgoingSink.finish()
            updateSink.yield(.closed(reason))
            updateSink.finish()
        }
        return connection
    }

    /// Sends `{"type":"subscribe","channel_id"}`.
    /// - Throws: `ServerError.transport(_:)` when the connection is closed or closing.
    public func subscribe(channelID: ChannelID) async throws {
        try send(["type": "subscribe", "channel_id": channelID.rawValue])
    }

    /// Sends `typing.start` or `typing.stop`.
    /// - Throws: `ServerError.transport(_:)` when the connection is closed or closing.
    public func sendTyping(channelID: ChannelID, started: Bool) async throws {
        try send(["type": started ? "typing.start" : "typing.stop", "channel_id": channelID.rawValue])
    }

    /// Closes cleanly with a close frame (1000); ``updates`` ends with
    /// `RealtimeCloseReason.closedByClient` unless the connection had already ended otherwise.
    public func close() async {
        state.end(.closedByClient)
        if state.markCloseSent() { outgoingSink.yield(.close(CloseFrame(code: 1000))) }
    }

    private func send(_ object: [String: String]) throws {
        guard !state.hasSentClose else { throw ServerError.transport("connection closed") }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        if case .terminated = outgoingSink.yield(.text(String(decoding: data, as: UTF8.self))) {
            throw ServerError.transport("connection closed")
        }
    }
}
