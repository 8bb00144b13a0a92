import NIOCore
import NIOHTTP1

/// The answer to a refused WebSocket upgrade: status, `Retry-After` and the start of the body.
struct RefusedHandshake: Sendable, Equatable {
    /// The HTTP status (anything but 101).
    let status: Int
    /// The raw `Retry-After` header, if any.
    let retryAfter: String?
    /// The body, truncated to ``HandshakeResponseRecorder/maxBodyBytes``.
    let body: [UInt8]
}

/// Sits between the HTTP response decoder and the upgrade handler and records the response to
/// the upgrade request, so that a refusal can be typed by its status. (swift-websocket's client
/// and NIO's upgrade handler both drop the refused response; swift-nio issue 3274.) The upgrade
/// handler removes it together with the HTTP handlers once the upgrade succeeds.
final class HandshakeResponseRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// How much of a refusal's body is kept (enough for a `{"detail": …}`).
    static let maxBodyBytes = 4096

    private let promise: EventLoopPromise<RefusedHandshake>
    private var status = 0
    private var retryAfter: String?
    private var body: [UInt8] = []

    /// Completes with the whole response once it has been read (only awaited for a refusal).
    var response: EventLoopFuture<RefusedHandshake> { promise.futureResult }

    init(eventLoop: any EventLoop) {
        promise = eventLoop.makePromise(of: RefusedHandshake.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            retryAfter = head.headers.first(name: "Retry-After")
        case .body(let buffer):
            let room = Self.maxBodyBytes - body.count
            if room > 0 { body += buffer.readableBytesView.prefix(room) }
        case .end:
            promise.succeed(RefusedHandshake(status: status, retryAfter: retryAfter, body: body))
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Removed by a successful upgrade, or by the channel closing mid-response.
        abandon()
    }

    /// Fails the response if it is not complete (a promise must never be left unfulfilled).
    func abandon() {
        promise.fail(ChannelError.inputClosed)
    }
}
