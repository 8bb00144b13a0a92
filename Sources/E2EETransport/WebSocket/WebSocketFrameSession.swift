import E2EEMessaging
import NIOCore
import NIOWebSocket

/// A frame the connection asks the session to send.
enum OutboundFrame: Sendable {
    /// A text message (one frame).
    case text(String)
    /// A ping with this payload.
    case ping(ByteBuffer)
    /// The answer to a ping.
    case pong(ByteBuffer)
    /// A close frame; nothing is sent after it.
    case close(CloseFrame)
}

/// Runs one upgraded WebSocket until it ends: a reader (messages decoded into updates, pings
/// answered, the close handshake), a writer (every outgoing frame, masked, in order) and the
/// keepalive. Returns why the connection ended.
struct WebSocketFrameSession: Sendable {
    let channel: WebSocketChannel
    let options: RealtimeConnectionOptions
    let state: SessionState
    let updates: AsyncStream<RealtimeUpdate>.Continuation
    let outgoing: AsyncStream<OutboundFrame>
    let send: AsyncStream<OutboundFrame>.Continuation

    func run() async -> RealtimeCloseReason {
        do {
            try await channel.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await write(to: outbound) }
                    if let tick = state.tickInterval {
                        group.addTask { await keepalive(tick: tick) }
                    }
                    await read(inbound)
                    group.cancelAll()
                }
            }
        } catch {
            state.end(.connectionLost(String(describing: type(of: error))))
        }
        return state.endReason ?? .connectionLost("closed without a close frame")
    }

    private func read(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>) async {
        var assembler = MessageAssembler(maxBytes: options.maxMessageBytes)
        let decoder = RealtimeEventDecoder()
        do {
            for try await frame in inbound {
                state.frameReceived()
                switch frame.opcode {
                case .text, .binary, .continuation:
                    for output in assembler.take(opcode: frame.opcode, fin: frame.fin, data: frame.unmaskedData) {
                        updates.yield(output.update(decoder: decoder))
                    }
                case .ping:
                    state.serverPingReceived()
                    send.yield(.pong(frame.unmaskedData))
                case .pong:
                    state.pongReceived()
                case .connectionClose:
                    let close = CloseFrame(payload: frame.unmaskedData)
                    state.end(.closedByServer(code: close.code, reason: close.reason))
                    // Answer the server's close (ours may be on its way already); the server then
                    // closes the TCP connection, or the writer drops it after the close timeout.
                    if state.markCloseSent() { send.yield(.close(CloseFrame(code: close.echoCode))) }
                default:
                    updates.yield(.malformedFrame(reason: "reserved opcode", byteCount: frame.length))
                }
            }
        } catch let error as NIOWebSocketError {
            // NIO's frame decoder refused a frame: too large, or broken framing. Tell the server
            // (1009 / 1002) and end; nothing after it can be trusted to be framed right.
            let tooLarge = error == .invalidFrameLength
            state.end(.connectionLost(tooLarge ? "frame over \(options.maxFrameBytes) bytes" : "protocol error"))
            if state.markCloseSent() {
                let close = Self.frame(.connectionClose, CloseFrame(code: tooLarge ? 1009 : 1002).payload)
                try? await channel.channel.writeAndFlush(close)
            }
        } catch {
            state.end(.connectionLost(String(describing: type(of: error))))
        }
    }

    private func write(to outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>) async {
        for await item in outgoing {
            let frame: WebSocketFrame
            switch item {
            case .text(let text): frame = Self.frame(.text, ByteBuffer(string: text))
            case .ping(let payload): frame = Self.frame(.ping, payload)
            case .pong(let payload): frame = Self.frame(.pong, payload)
            case .close(let close): frame = Self.frame(.connectionClose, close.payload)
            }
            do {
                try await outbound.write(frame)
            } catch {
                return
            }
            if frame.opcode == .connectionClose {
                // Nothing is sent after a close; give the other side a moment to close the TCP
                // connection, then drop it.
                try? await Task.sleep(nanoseconds: options.closeTimeout.nanoseconds)
                if !Task.isCancelled { channel.channel.close(promise: nil) }
                return
            }
        }
    }

    private func keepalive(tick: Duration) async {
        var counter: UInt64 = 0
        while !Task.isCancelled {
            do { try await Task.sleep(nanoseconds: tick.nanoseconds) } catch { return }
            switch state.keepaliveTick() {
            case .wait:
                continue
            case .sendPing:
                counter += 1
                var payload = ByteBuffer()
                payload.writeInteger(counter)
                send.yield(.ping(payload))
            case .dead(let reason):
                // The peer is gone: no close handshake, drop the connection.
                state.end(.connectionLost(reason))
                channel.channel.close(promise: nil)
                return
            }
        }
    }

    /// A client frame: final, masked (RFC 6455 requires it of clients).
    private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }
}

extension Duration {
    /// The span in whole nanoseconds, never negative (for `Task.sleep(nanoseconds:)`).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
