import E2EEMessaging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The frames of an upgraded connection.
typealias WebSocketChannel = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

/// Opens a WebSocket: TCP (and TLS for `wss`), then the HTTP upgrade. A refused upgrade is
/// typed by its status like any other answer of the server (``ServerError/from(status:body:retryAfter:)``):
/// 403 → `.forbidden`, 429 → `.rateLimited(retryAfter:)`, 503 → `.server(status: 503, …)`.
enum WebSocketHandshake {
    private enum Outcome: Sendable {
        case upgraded(WebSocketChannel)
        case refused(EventLoopFuture<RefusedHandshake>, any Channel)
    }

    /// Connects to `url` and returns the upgraded channel.
    /// - Throws: the typed ``ServerError`` of a refused upgrade, or
    ///   ``ServerError/transport(_:)`` when no connection or no answer came within
    ///   `options.handshakeTimeout` (the message names the error type only: the URL holds a ticket).
    static func connect(to url: WebSocketURL, options: RealtimeConnectionOptions, tls: NIOSSLContext?) async throws -> WebSocketChannel {
        if url.secure, tls == nil { throw ServerError.transport("TLS is unavailable") }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(options.handshakeTimeout))
        let outcome: EventLoopFuture<Outcome>
        do {
            outcome = try await bootstrap.connect(host: url.host, port: url.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configure(channel, url: url, options: options, tls: url.secure ? tls : nil)
                }
            }
        } catch {
            throw ServerError.transport("connect: \(type(of: error))")
        }
        switch try await answer(outcome) {
        case .upgraded(let channel):
            return channel
        case .refused(let response, let channel):
            let refused: RefusedHandshake
            do {
                refused = try await answer(response)
            } catch {
                try? await channel.close()
                throw error
            }
            try? await channel.close()
            throw ServerError.from(status: refused.status, body: refused.body,
                                   retryAfter: RetryAfter.seconds(fromHeader: refused.retryAfter))
        }
    }

    private static func answer<T: Sendable>(_ future: EventLoopFuture<T>) async throws -> T {
        do {
            return try await future.get()
        } catch {
            throw ServerError.transport("handshake: \(type(of: error))")
        }
    }

    /// Builds the pipeline on the channel's event loop: TLS, HTTP codec, the response recorder,
    /// the upgrade handler; and a timer that closes the channel if the upgrade has not finished.
    private static func configure(_ channel: any Channel, url: WebSocketURL, options: RealtimeConnectionOptions,
                                  tls: NIOSSLContext?) throws -> EventLoopFuture<Outcome> {
        let pipeline = channel.pipeline.syncOperations
        if let tls {
            let isAddress = (try? SocketAddress(ipAddress: url.host, port: 0)) != nil
            try pipeline.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : url.host))
        }
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let recorder = HandshakeResponseRecorder(eventLoop: channel.eventLoop)
        let refused = recorder.response
        // No automatic error handling: it closes the channel before the error reaches the frame
        // session, which then could not say why the connection ended.
        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(maxFrameSize: options.maxFrameBytes,
                                                                enableAutomaticErrorHandling: false) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                .upgraded(try WebSocketChannel(wrappingChannelSynchronously: channel))
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.hostHeader)
        let upgrade = NIOTypedHTTPClientUpgradeHandler<Outcome>(
            // Removed in this order on upgrade: the recorder first, so that bytes the decoder
            // forwards when it leaves never reach it.
            httpHandlers: [recorder, encoder, decoder],
            upgradeConfiguration: .init(
                upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: url.requestTarget, headers: headers),
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.refused(refused, channel)) }
            )
        )
        do {
            try pipeline.addHandler(encoder)
            try pipeline.addHandler(decoder)
            try pipeline.addHandler(recorder)
            try pipeline.addHandler(upgrade)
        } catch {
            recorder.abandon()
            throw error
        }
        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(options.handshakeTimeout)) {
            channel.close(promise: nil)
        }
        let result = upgrade.upgradeResultFuture
        result.whenComplete { outcome in
            // A refusal keeps the timer until its body has been read.
            if case .success(.refused) = outcome { return }
            timeout.cancel()
        }
        refused.whenComplete { _ in timeout.cancel() }
        return result
    }
}

extension TimeAmount {
    /// The same span in NIO's nanoseconds.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
