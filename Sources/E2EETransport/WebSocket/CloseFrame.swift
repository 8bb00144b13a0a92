import Foundation
import NIOCore
import NIOWebSocket

/// The payload of a close frame: an optional status code and an optional UTF-8 reason.
struct CloseFrame: Sendable, Equatable {
    /// The status code (none when the payload is empty: RFC 6455's "no status received").
    var code: Int?
    /// The reason text; `nil` when empty or not UTF-8.
    var reason: String?

    /// Reads a received close payload; never fails (a 1-byte payload has no code).
    init(payload: ByteBuffer) {
        var payload = payload
        guard let raw = payload.readInteger(as: UInt16.self) else {
            code = nil
            reason = nil
            return
        }
        code = Int(raw)
        let text = payload.readableBytesView.isEmpty ? nil : String(bytes: payload.readableBytesView, encoding: .utf8)
        reason = text?.isEmpty == false ? text : nil
    }

    /// A close frame to send.
    init(code: Int, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }

    /// The payload to send: the code, then the reason cut to fit a control frame (125 bytes).
    var payload: ByteBuffer {
        var buffer = ByteBuffer()
        guard let code, let value = UInt16(exactly: code) else { return buffer }
        buffer.writeInteger(value)
        var room = 123
        for scalar in (reason ?? "").unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard bytes.count <= room else { break }
            buffer.writeBytes(bytes)
            room -= bytes.count
        }
        return buffer
    }

    /// The code to answer a received close with: the same one, or 1000 when it had none or
    /// one that may not be sent (1005, 1006, 1015).
    var echoCode: Int {
        guard let code, ![1005, 1006, 1015].contains(code) else { return 1000 }
        return code
    }
}
