import E2EETestSupport
import Foundation
import NIOCore
import NIOPosix

/// A server that accepts TCP connections on a port and never answers (a hung or overloaded
/// server): it records the request line of every HTTP request it receives, so that a test can
/// tell which requests a client made while it waited.
final class SilentServer: Sendable {
    private let channel: any Channel
    private let accepted: Watched<[any Channel]>
    /// The request lines received so far (`GET /health HTTP/1.1`), in order.
    let requestLines: Watched<[String]>

    private init(channel: any Channel, accepted: Watched<[any Channel]>, requestLines: Watched<[String]>) {
        self.channel = channel
        self.accepted = accepted
        self.requestLines = requestLines
    }

    /// Listens on `host`:`port` (a port another server just left).
    static func start(host: String, port: Int) async throws -> SilentServer {
        let lines = Watched<[String]>([])
        let accepted = Watched<[any Channel]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                accepted.update { $0.append(child) }
                return child.eventLoop.makeCompletedFuture { try child.pipeline.syncOperations.addHandler(RequestLineRecorder(lines: lines)) }
            }
            .bind(host: host, port: port).get()
        return SilentServer(channel: channel, accepted: accepted, requestLines: lines)
    }

    /// Stops listening and closes every accepted connection, unanswered (the hung server ends).
    func stop() async {
        try? await channel.close()
        for child in accepted.value { try? await child.close() }
    }
}

/// Reads bytes and records every line that starts an HTTP request; never writes.
private final class RequestLineRecorder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let lines: Watched<[String]>
    private var pending = ""

    init(lines: Watched<[String]>) { self.lines = lines }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readString(length: buffer.readableBytes) ?? ""
        while let end = pending.range(of: "\r\n") {
            let line = String(pending[..<end.lowerBound])
            pending.removeSubrange(..<end.upperBound)
            if let method = line.split(separator: " ").first, ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(String(method)) {
                lines.update { $0.append(line) }
            }
        }
    }
}
