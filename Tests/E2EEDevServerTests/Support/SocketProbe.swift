import E2EEDevServer
import Foundation
import HummingbirdWSClient
import Logging

/// Frames received by a test socket, and whether it is open.
actor FrameInbox {
    private(set) var frames: [String] = []
    private(set) var opened = false
    private(set) var closed = false
    /// The server's close frame, if one came.
    private(set) var closeCode: Int?
    private(set) var closeReason: String?

    func append(_ frame: String) { frames.append(frame) }
    func markOpen() { opened = true }
    func markClosed(code: Int? = nil, reason: String? = nil) {
        closed = true
        closeCode = code
        closeReason = reason
    }

    /// Removes and returns the first frame satisfying `predicate`.
    func take(where predicate: (JSONValue) -> Bool) -> JSONValue? {
        for (index, frame) in frames.enumerated() {
            if let value = try? JSONValue.parse(Data(frame.utf8)), predicate(value) {
                frames.remove(at: index)
                return value
            }
        }
        return nil
    }
}

/// A real WebSocket client connection (HummingbirdWSClient) that records what it receives.
struct SocketProbe: Sendable {
    let inbox: FrameInbox
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    /// Connects and waits for the handshake. With `autoPing`, the library pings at that interval
    /// and closes the connection when a pong does not come back in time.
    /// - Throws: ``HarnessError/handshakeFailed`` when the server refuses the upgrade.
    static func connect(url: String, autoPing: Duration? = nil) async throws -> SocketProbe {
        let inbox = FrameInbox()
        let (outStream, outSink) = AsyncStream.makeStream(of: String.self)
        var configuration = WebSocketClientConfiguration()
        configuration.autoPing = autoPing.map { .enabled(timePeriod: $0) } ?? .disabled
        configuration.maxFrameSize = 1 << 20
        let clientConfiguration = configuration
        let task = Task {
            let closeFrame = try? await WebSocketClient.connect(url: url, configuration: clientConfiguration, logger: Logger(label: "probe")) { inbound, outbound, _ in
                await inbox.markOpen()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { await inbox.append(text) }
                        }
                    }
                    group.addTask {
                        for await text in outStream { try await outbound.write(.text(text)) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
            let code = (closeFrame ?? nil).map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
            await inbox.markClosed(code: code, reason: (closeFrame ?? nil)?.reason)
        }
        let probe = SocketProbe(inbox: inbox, outgoing: outSink, task: task)
        for _ in 0..<500 {
            if await inbox.opened { return probe }
            if await inbox.closed { throw HarnessError.handshakeFailed }
            try await pause(.milliseconds(10))
        }
        throw HarnessError.timedOut
    }

    /// Sends a text frame.
    func send(_ text: String) { outgoing.yield(text) }

    /// Sends a JSON frame.
    func send(_ value: JSONValue) { outgoing.yield(value.text) }

    /// Waits up to `timeout` for a frame satisfying `predicate` and removes it.
    func next(timeout: Duration = .seconds(5), where predicate: @Sendable @escaping (JSONValue) -> Bool) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = await inbox.take(where: predicate) { return value }
            try? await pause(.milliseconds(10))
        }
        return nil
    }

    /// Waits up to `timeout` for an event of `type`.
    func next(type: String, timeout: Duration = .seconds(5)) async -> JSONValue? {
        await next(timeout: timeout) { $0["type"]?.stringValue == type }
    }

    /// Waits up to `timeout` for the connection to end.
    func waitClosed(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await inbox.closed { return true }
            try? await pause(.milliseconds(10))
        }
        return false
    }

    /// All frames still unread, parsed.
    func unread() async -> [JSONValue] {
        await inbox.frames.compactMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    /// Closes the connection and waits for it to end.
    func close() async {
        outgoing.finish()
        _ = await waitClosed(timeout: .seconds(3))
        task.cancel()
    }
}

/// Suspends the test for `duration` (through `Task.sleep(nanoseconds:)`; see the note on the
/// server's own sleeps).
func pause(_ duration: Duration) async throws {
    let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    try await Task.sleep(nanoseconds: UInt64(max(0, nanoseconds)))
}
