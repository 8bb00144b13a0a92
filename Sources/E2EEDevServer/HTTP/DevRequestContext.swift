import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the dev server: WebSocket-capable and aware of the peer address (the
/// rate limit is per IP).
struct DevRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?
    /// The connection, so a socket can be dropped abruptly (fault injection).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
