import E2EEMessaging
import Foundation
import NIOCore
import NIOWebSocket

/// Joins data frames (a text or binary frame and its continuations) into whole messages, within
/// a size limit. A message over the limit is dropped as its fragments arrive (never buffered
/// whole) and reported once it ends. Fragmentation errors are reported, never fatal.
struct MessageAssembler {
    /// A finished message, or why one was dropped.
    enum Output: Equatable {
        /// A complete text message.
        case text(String)
        /// A message that cannot be decoded; `byteCount` is its size so far.
        case malformed(reason: String, byteCount: Int)
    }

    private enum Kind { case text, binary }

    private let maxBytes: Int
    private var kind: Kind?
    private var buffer = ByteBuffer()
    private var byteCount = 0
    private var oversized = false

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Takes one data frame (`text`, `binary` or `continuation`); returns the messages it
    /// completes or drops (usually none or one).
    mutating func take(opcode: WebSocketOpcode, fin: Bool, data: ByteBuffer) -> [Output] {
        var outputs: [Output] = []
        switch opcode {
        case .text, .binary:
            if kind != nil {
                // A new message began before the previous one ended: the previous one is lost.
                outputs.append(.malformed(reason: "unfinished fragmented message", byteCount: byteCount))
                reset()
            }
            kind = opcode == .text ? .text : .binary
            append(data)
        case .continuation:
            guard kind != nil else {
                return [.malformed(reason: "continuation without a message", byteCount: data.readableBytes)]
            }
            append(data)
        default:
            return [.malformed(reason: "not a data frame", byteCount: data.readableBytes)]
        }
        if fin { outputs.append(finish()) }
        return outputs
    }

    private mutating func append(_ data: ByteBuffer) {
        byteCount += data.readableBytes
        if byteCount > maxBytes {
            oversized = true
            buffer.clear()
        } else if !oversized {
            var data = data
            buffer.writeBuffer(&data)
        }
    }

    private mutating func finish() -> Output {
        defer { reset() }
        if oversized { return .malformed(reason: "message over \(maxBytes) bytes", byteCount: byteCount) }
        guard kind == .text else { return .malformed(reason: "binary frame", byteCount: byteCount) }
        let bytes = buffer.readableBytesView
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            return .malformed(reason: "text frame is not UTF-8", byteCount: byteCount)
        }
        return .text(text)
    }

    private mutating func reset() {
        kind = nil
        buffer.clear()
        byteCount = 0
        oversized = false
    }
}

extension MessageAssembler.Output {
    /// The update a connection reports for this output (text is decoded as an event).
    func update(decoder: RealtimeEventDecoder) -> RealtimeUpdate {
        switch self {
        case .text(let text): decoder.decode(text)
        case .malformed(let reason, let byteCount): .malformedFrame(reason: reason, byteCount: byteCount)
        }
    }
}
