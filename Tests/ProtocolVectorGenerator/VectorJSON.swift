/// A JSON value whose objects keep their keys in insertion order, with a writer that always
/// produces the same bytes for the same value (two-space indentation, `"key": value`, a final
/// newline). The vector files are written only through this, so regenerating them is
/// byte-identical.
public indirect enum VectorJSON: Sendable, Equatable {
    /// A string (escaped on output as JSON requires).
    case string(String)
    /// An integer.
    case int(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// A list.
    case array([VectorJSON])
    /// An object with keys in this order.
    case object([(String, VectorJSON)])

    /// Objects are equal when their ordered pairs are.
    public static func == (lhs: VectorJSON, rhs: VectorJSON) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The UTF-8 bytes of the whole document, ending in a newline.
    public func document() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: 0)
        out.append(0x0A)
        return out
    }

    private func write(into out: inout [UInt8], indent: Int) {
        switch self {
        case .string(let text): Self.writeString(text, into: &out)
        case .int(let value): out += Array(String(value).utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .array(let items):
            // Lists of scalars stay on one line; lists of objects get one item per line.
            if items.allSatisfy({ if case .object = $0 { false } else { true } }) {
                out.append(UInt8(ascii: "["))
                for (index, item) in items.enumerated() {
                    if index > 0 { out += Array(", ".utf8) }
                    item.write(into: &out, indent: indent)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                out += Array((index == 0 ? "\n" : ",\n").utf8) + Self.spaces(indent + 2)
                item.write(into: &out, indent: indent + 2)
            }
            out += Array("\n".utf8) + Self.spaces(indent) + [UInt8(ascii: "]")]
        case .object(let pairs):
            guard !pairs.isEmpty else {
                out += Array("{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (index, pair) in pairs.enumerated() {
                out += Array((index == 0 ? "\n" : ",\n").utf8) + Self.spaces(indent + 2)
                Self.writeString(pair.0, into: &out)
                out += Array(": ".utf8)
                pair.1.write(into: &out, indent: indent + 2)
            }
            out += Array("\n".utf8) + Self.spaces(indent) + [UInt8(ascii: "}")]
        }
    }

    private static func spaces(_ count: Int) -> [UInt8] { [UInt8](repeating: 0x20, count: count) }

    /// Escapes `"`, `\` and control characters; everything else is written as UTF-8.
    private static func writeString(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x00..<0x20, 0x7F: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Builds an ordered JSON object field by field.
public struct JSONObjectBuilder: Sendable {
    /// The pairs so far.
    public private(set) var pairs: [(String, VectorJSON)] = []

    /// An empty object.
    public init() {}

    /// Appends (or replaces in place) `key`.
    public mutating func set(_ key: String, _ value: VectorJSON) {
        if let index = pairs.firstIndex(where: { $0.0 == key }) {
            pairs[index].1 = value
        } else {
            pairs.append((key, value))
        }
    }

    /// Appends a string field.
    public mutating func set(_ key: String, _ text: String) { set(key, .string(text)) }

    /// Appends an integer field.
    public mutating func set(_ key: String, _ value: some BinaryInteger) { set(key, .int(Int64(value))) }

    /// Appends a hex field.
    public mutating func setHex(_ key: String, _ bytes: [UInt8]) { set(key, .string(hexString(bytes))) }

    /// The value of `key`, if set.
    public subscript(key: String) -> VectorJSON? { pairs.first { $0.0 == key }?.1 }

    /// The object.
    public var json: VectorJSON { .object(pairs) }
}

/// Lower-case hex.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let table = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(table[Int(byte >> 4)])
        out.append(table[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
