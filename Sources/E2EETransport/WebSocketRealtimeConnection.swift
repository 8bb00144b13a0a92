import E2EEMessaging
import Foundation
import HummingbirdWSClient
import Logging
import NIOWebSocket

/// One WebSocket connection: text frames decoded into ``RealtimeUpdate``s (a frame that does
/// not decode is reported and the stream goes on), outgoing frames written in order, and a
/// single final ``RealtimeUpdate/closed(_:)`` saying why it ended.
public final class WebSocketRealtimeConnection: RealtimeConnection {
    /// The WebSocket library's logger: silent, because the connection URL carries the ticket
    /// (a credential) and no log line may show it.
    static let quietLogger = Logger(label: "e2ee.realtime", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Everything the connection reports, ending with one ``RealtimeUpdate/closed(_:)``.
    public let updates: AsyncStream<RealtimeUpdate>
    private let updateSink: AsyncStream<RealtimeUpdate>.Continuation
    private let outgoing: AsyncStream<String>
    private let outgoingSink: AsyncStream<String>.Continuation
    private let flags = ConnectionFlags()

    init() {
        (updates, updateSink) = AsyncStream.makeStream(of: RealtimeUpdate.self)
        (outgoing, outgoingSink) = AsyncStream.makeStream(of: String.self)
    }

    /// Starts the connection task and waits for the handshake's outcome.
    func start(url: String, configuration: WebSocketClientConfiguration) async throws {
        let (handshake, handshakeSink) = AsyncStream.makeStream(of: ServerError?.self)
        let updateSink = self.updateSink
        let outgoing = self.outgoing
        let flags = self.flags
        let outgoingSink = self.outgoingSink
        Task {
            var reason: RealtimeCloseReason
            do {
                let closeFrame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: Self.quietLogger) { inbound, outbound, _ in
                    handshakeSink.yield(nil)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            let decoder = RealtimeEventDecoder()
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                switch message {
                                case .text(let text): updateSink.yield(decoder.decode(text))
                                case .binary(let bytes): updateSink.yield(.malformedFrame(reason: "binary frame", byteCount: bytes.readableBytes))
                                }
                            }
                        }
                        group.addTask {
                            for await text in outgoing { try await outbound.write(.text(text)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
                if await flags.closedByClient {
                    reason = .closedByClient
                } else if let closeFrame {
                    reason = .closedByServer(code: Int(UInt16(webSocketErrorCode: closeFrame.closeCode)), reason: closeFrame.reason)
                } else {
                    reason = .connectionLost("closed without a close frame")
                }
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                handshakeSink.yield(.forbidden(detail: "WebSocket handshake refused"))
                reason = .connectionLost("handshake refused")
            } catch {
                handshakeSink.yield(.transport(String(describing: type(of: error))))
                reason = await flags.closedByClient ? .closedByClient : .connectionLost(String(describing: type(of: error)))
            }
            outgoingSink.finish()
            updateSink.yield(.closed(reason))
            updateSink.finish()
            handshakeSink.finish()
        }
        for await outcome in handshake {
            if let outcome { throw outcome }
            return
        }
        throw ServerError.transport("connection ended before the handshake")
    }

    /// Sends `{"type":"subscribe","channel_id"}`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    public func subscribe(channelID: String) async throws {
        try await send(["type": "subscribe", "channel_id": channelID])
    }

    /// Sends `typing.start` or `typing.stop`.
    /// - Throws: ``ServerError/transport(_:)`` when the connection is closed.
    public func sendTyping(channelID: String, started: Bool) async throws {
        try await send(["type": started ? "typing.start" : "typing.stop", "channel_id": channelID])
    }

    /// Closes cleanly with a close frame; ``updates`` ends with ``RealtimeCloseReason/closedByClient``.
    public func close() async {
        await flags.markClosedByClient()
        outgoingSink.finish()
    }

    private func send(_ object: [String: String]) async throws {
        guard !(await flags.closedByClient) else { throw ServerError.transport("connection closed") }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        if case .terminated = outgoingSink.yield(String(decoding: data, as: UTF8.self)) {
            throw ServerError.transport("connection closed")
        }
    }
}

/// Whether the client asked to close.
actor ConnectionFlags {
    private(set) var closedByClient = false
    func markClosedByClient() { closedByClient = true }
}
