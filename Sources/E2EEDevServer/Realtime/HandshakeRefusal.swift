import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Gives a refused WebSocket handshake the status the reference server uses (403 for a bad
/// ticket, 429 when rate limited, an injected status for faults) with a JSON `detail`, or an
/// empty body when the refusal has none (the reference server's bad-ticket 403).
///
/// hummingbird-websocket answers every refused upgrade with a bare 400; this outbound handler
/// sits before the HTTP encoder and rewrites that one response when the handshake check has
/// recorded a refusal on the connection. It is removed as soon as an upgrade is accepted, so it
/// never sees WebSocket frames.
final class HandshakeRefusalWriter: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "e2ee-devserver.handshake-refusal"

    struct Refusal: Sendable {
        let status: Int
        /// The JSON `detail`, or `nil` for an empty body.
        let detail: String?
        let headers: [(String, String)]
    }

    private let refusal = LockedState<Refusal?>(nil)

    /// Records why the handshake on this connection is refused.
    func refuse(_ value: Refusal) { refusal.withLock { $0 = value } }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let refusal = refusal.withLock({ $0 }), case .head(var head) = unwrapOutboundIn(data),
              head.status == .badRequest
        else {
            context.write(data, promise: promise)
            return
        }
        let body = ByteBuffer(string: refusal.detail.map { JSONValue.object(["detail": .string($0)]).text } ?? "")
        head.status = HTTPResponseStatus(statusCode: refusal.status)
        if refusal.detail == nil {
            head.headers.remove(name: "Content-Type")
        } else {
            head.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        }
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        for (name, value) in refusal.headers { head.headers.replaceOrAdd(name: name, value: value) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
    }
}

/// hummingbird-websocket's HTTP/1 + upgrade channel with a ``HandshakeRefusalWriter`` added.
struct RefusalAwareUpgradeChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(HandshakeRefusalWriter(), name: HandshakeRefusalWriter.name)
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    /// The server builder for `Application(server:)`.
    static func builder(webSocketRouter: Router<DevRequestContext>, configuration: WebSocketServerConfiguration) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            RefusalAwareUpgradeChannel(inner: HTTP1WebSocketUpgradeChannel(
                responder: responder,
                webSocketResponder: webSocketResponder,
                configuration: .init(ws: configuration)
            ))
        }
    }
}

extension DevRequestContext {
    /// Records a handshake refusal on this connection (`detail` `nil`: an empty body).
    func refuseHandshake(status: Int, detail: String?, headers: [(String, String)] = []) async {
        guard let writer = try? await channel.pipeline.handler(type: HandshakeRefusalWriter.self).get() else { return }
        writer.refuse(.init(status: status, detail: detail, headers: headers))
    }

    /// Takes the refusal writer out of the pipeline once the upgrade is accepted.
    func acceptHandshake() async {
        _ = try? await channel.pipeline.removeHandler(name: HandshakeRefusalWriter.name).get()
    }
}
