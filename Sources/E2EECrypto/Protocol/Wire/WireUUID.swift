/// A UUID as the protocol uses it: 16 raw bytes on the wire, the 36-character lower-case
/// 8-4-4-4-12 form as text (docs/spec/protocol.md §0).
public struct WireUUID: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Wraps 16 raw bytes.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for any other length.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 16 else { throw ProtocolError.malformed(.uuid, reason: "\(bytes.count) bytes, expected 16") }
        self.bytes = bytes
    }

    /// Parses the lower-case 8-4-4-4-12 text form (upper case is refused: it is not canonical).
    /// - Throws: ``ProtocolError/malformed(_:reason:)``.
    public init(text: String) throws {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { throw ProtocolError.malformed(.uuid, reason: "length \(utf8.count)") }
        var raw: [UInt8] = []
        var nibble: UInt8?
        for (index, char) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard char == UInt8(ascii: "-") else { throw ProtocolError.malformed(.uuid, reason: "dash expected at \(index)") }
                continue
            }
            let value: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = char - UInt8(ascii: "a") + 10
            default: throw ProtocolError.malformed(.uuid, reason: "not a lower-case hex digit at \(index)")
            }
            if let high = nibble {
                raw.append(high << 4 | value)
                nibble = nil
            } else {
                nibble = value
            }
        }
        self.bytes = raw
    }

    /// The lower-case 8-4-4-4-12 text form.
    public var text: String {
        // Written into the string's own storage: envelopes are read for every received message.
        String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                out[position] = Self.hexDigits[Int(byte >> 4)]
                out[position + 1] = Self.hexDigits[Int(byte & 0x0f)]
                position += 2
            }
            return position
        }
    }

    /// The lower-case hex digits of ``text``.
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The text form.
    public var description: String { text }

    /// Bytewise order.
    public static func < (lhs: WireUUID, rhs: WireUUID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// Encodes as the text form.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Decodes the text form.
    public init(from decoder: Decoder) throws {
        try self.init(text: try decoder.singleValueContainer().decode(String.self))
    }
}

extension WireReader {
    /// A 16-byte UUID.
    public mutating func readUUID() throws -> WireUUID { try WireUUID(bytes: readBytes(16)) }
}

extension WireWriter {
    /// Appends a UUID's 16 raw bytes.
    public mutating func write(_ uuid: WireUUID) { write(uuid.bytes) }
}
