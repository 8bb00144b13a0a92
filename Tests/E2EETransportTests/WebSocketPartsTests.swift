@testable import E2EETransport
import E2EEMessaging
import NIOCore
import NIOWebSocket
import Testing

/// The pure parts of the WebSocket client: keepalive rules, message assembly, close payloads,
/// `Retry-After`, URLs.
@Suite("WebSocket client parts")
struct WebSocketPartsTests {
    private func monitor(ping: Int?, idle: Int?, missed: Int = 2) -> KeepaliveMonitor {
        KeepaliveMonitor(options: RealtimeConnectionOptions(pingInterval: ping.map { .seconds($0) }, missedPongLimit: missed,
                                                            idleTimeout: idle.map { .seconds($0) }))
    }

    @Test func keepalivePingsEveryIntervalAndDiesAfterTwoMissedPongs() {
        var keepalive = monitor(ping: 30, idle: nil)
        #expect(keepalive.tick(at: .seconds(29)) == .wait)
        #expect(keepalive.tick(at: .seconds(30)) == .sendPing)
        #expect(keepalive.tick(at: .seconds(45)) == .wait)
        #expect(keepalive.tick(at: .seconds(60)) == .sendPing, "one pong missed: ping again")
        #expect(keepalive.tick(at: .seconds(90)) == .dead("keepalive: 2 pings unanswered"))
    }

    @Test func aPongResetsTheMissedCount() {
        var keepalive = monitor(ping: 30, idle: nil)
        #expect(keepalive.tick(at: .seconds(30)) == .sendPing)
        #expect(keepalive.tick(at: .seconds(60)) == .sendPing)
        keepalive.pongReceived(at: .seconds(61))
        #expect(keepalive.tick(at: .seconds(90)) == .sendPing)
        #expect(keepalive.tick(at: .seconds(120)) == .sendPing)
        #expect(keepalive.tick(at: .seconds(150)) == .dead("keepalive: 2 pings unanswered"))
    }

    @Test func noFrameForTheIdleTimeoutIsDeadAndAnyFrameRestartsIt() {
        var keepalive = monitor(ping: nil, idle: 90)
        keepalive.frameReceived(at: .seconds(50))
        #expect(keepalive.tick(at: .seconds(139)) == .wait)
        #expect(keepalive.tick(at: .seconds(140)) == .dead("keepalive: no frame for 90.0 s"))
        var defaults = KeepaliveMonitor(options: .standard)
        #expect(defaults.tickInterval == .seconds(6))
        #expect(defaults.tick(at: .seconds(30)) == .sendPing)
        var off = monitor(ping: nil, idle: nil)
        #expect(!off.isActive && off.tickInterval == nil && off.tick(at: .seconds(10_000)) == .wait)
    }

    private func data(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func fragmentsAreJoinedAndOversizedMessagesSkipped() {
        var assembler = MessageAssembler(maxBytes: 10)
        #expect(assembler.take(opcode: .text, fin: false, data: data("{\"a\":")).isEmpty)
        #expect(assembler.take(opcode: .continuation, fin: true, data: data("1}")) == [.text("{\"a\":1}")])
        #expect(assembler.take(opcode: .text, fin: false, data: data("123456")).isEmpty)
        #expect(assembler.take(opcode: .continuation, fin: false, data: data("789012")).isEmpty)
        #expect(assembler.take(opcode: .continuation, fin: true, data: data("34")) == [.malformed(reason: "message over 10 bytes", byteCount: 14)])
        #expect(assembler.take(opcode: .text, fin: true, data: data("ok")) == [.text("ok")], "the next message is whole again")
    }

    @Test func fragmentationErrorsAndBinaryAreReportedNotFatal() {
        var assembler = MessageAssembler(maxBytes: 100)
        #expect(assembler.take(opcode: .continuation, fin: true, data: data("xy")) == [.malformed(reason: "continuation without a message", byteCount: 2)])
        #expect(assembler.take(opcode: .text, fin: false, data: data("abc")).isEmpty)
        #expect(assembler.take(opcode: .text, fin: true, data: data("new")) == [
            .malformed(reason: "unfinished fragmented message", byteCount: 3), .text("new"),
        ])
        #expect(assembler.take(opcode: .binary, fin: true, data: data("bin")) == [.malformed(reason: "binary frame", byteCount: 3)])
        let invalid = ByteBuffer(bytes: [0xFF, 0xFE, 0x41])
        #expect(assembler.take(opcode: .text, fin: true, data: invalid) == [.malformed(reason: "text frame is not UTF-8", byteCount: 3)])
    }

    @Test func closePayloadsReadAndWrite() {
        var payload = ByteBuffer()
        payload.writeInteger(UInt16(4001))
        payload.writeString("bye")
        #expect(CloseFrame(payload: payload) == CloseFrame(code: 4001, reason: "bye"))
        #expect(CloseFrame(payload: ByteBuffer()) == CloseFrame(payload: ByteBuffer(bytes: [0x03])), "no code")
        #expect(CloseFrame(payload: ByteBuffer()).code == nil && CloseFrame(payload: ByteBuffer()).echoCode == 1000)
        #expect(CloseFrame(code: 1005).echoCode == 1000)
        #expect(CloseFrame(code: 4001).echoCode == 4001)
        let long = CloseFrame(code: 1000, reason: String(repeating: "é", count: 100)).payload
        #expect(long.readableBytes == 2 + 122, "cut to a control frame on a character boundary")
        #expect(CloseFrame(payload: long).reason == String(repeating: "é", count: 61))
    }

    @Test func retryAfterIsClampedAndValidated() {
        #expect(RetryAfter.seconds(fromHeader: "10") == 10)
        #expect(RetryAfter.seconds(fromHeader: " 7 ") == 7)
        #expect(RetryAfter.seconds(fromHeader: "86400") == 300)
        #expect(RetryAfter.seconds(fromHeader: "99999999999999999999999") == 300)
        #expect(RetryAfter.seconds(fromHeader: "-5") == nil)
        #expect(RetryAfter.seconds(fromHeader: "Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(RetryAfter.seconds(fromHeader: "") == nil)
        #expect(RetryAfter.seconds(fromHeader: nil) == nil)
    }

    @Test func webSocketURLs() throws {
        let plain = try WebSocketURL("ws://127.0.0.1:8000/ws")
        #expect(!plain.secure && plain.host == "127.0.0.1" && plain.port == 8000 && plain.requestTarget == "/ws")
        #expect(plain.hostHeader == "127.0.0.1:8000")
        let secure = try WebSocketURL("wss://chat.example.com/ws?x=1")
        #expect(secure.secure && secure.port == 443 && secure.requestTarget == "/ws?x=1" && secure.hostHeader == "chat.example.com")
        let six = try WebSocketURL("ws://[::1]:9000")
        #expect(six.host == "::1" && six.requestTarget == "/" && six.hostHeader == "[::1]:9000")
        for bad in ["http://example.com/ws", "ws:///nohost", "not a url"] {
            #expect(throws: ServerError.transport("invalid WebSocket URL")) { try WebSocketURL(bad) }
        }
    }
}
