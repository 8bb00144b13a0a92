/// A JSON value as the strict payload parser sees it. Numbers keep their source text so that
/// integer rules (no fraction, no exponent) can be enforced exactly; objects keep key order.
enum StrictJSON: Sendable, Equatable {
    case object([(key: String, value: StrictJSON)])
    case array([StrictJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    static func == (lhs: StrictJSON, rhs: StrictJSON) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.array(a), .array(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The member named `key` of an object (keys are unique after parsing).
    subscript(key: String) -> StrictJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key.utf8.count == key.utf8.count && $0.key.utf8.elementsEqual(key.utf8) }?.value
    }
}

/// A strict RFC 8259 parser for payloads (docs/spec/protocol.md §6). Unlike Foundation's, it refuses
/// duplicate keys at any depth (compared by their decoded code points), invalid UTF-8, lone
/// surrogate escapes, a byte-order mark, and nesting deeper than
/// ``ProtocolLimits/maxPayloadNestingDepth``. Error reasons never quote the input.
struct StrictJSONParser {
    private let bytes: [UInt8]
    private var index = 0

    /// Parses one JSON value filling all of `bytes` (whitespace around it allowed).
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/payload``.
    static func parse(_ bytes: [UInt8]) throws -> StrictJSON {
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else { throw fail("byte-order mark") }
        // Swift's validating initializer refuses overlong forms, surrogates and truncated
        // sequences, as RFC 3629 does.
        guard String(validating: bytes, as: UTF8.self) != nil else { throw fail("invalid UTF-8") }
        var parser = StrictJSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw fail("bytes after the value at offset \(parser.index)") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func fail(_ reason: String) -> ProtocolError { .malformed(.payload, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, bytes[index..<(index + expected.count)].elementsEqual(expected) else {
            throw Self.fail("invalid literal at offset \(index)")
        }
        index += expected.count
    }

    private mutating func parseValue(depth: Int) throws -> StrictJSON {
        guard let byte = current else { throw Self.fail("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw Self.fail("unexpected byte at offset \(index)")
        }
    }

    /// Members up to which an object's keys are checked for a duplicate by scanning them.
    static let scannedMembers = 16

    private mutating func parseObject(depth: Int) throws -> StrictJSON {
        guard depth <= ProtocolLimits.maxPayloadNestingDepth else { throw Self.fail("nesting deeper than \(ProtocolLimits.maxPayloadNestingDepth)") }
        index += 1
        var members: [(key: String, value: StrictJSON)] = []
        // Built only for an object of more than `scannedMembers` members.
        var seen: Set<CodePointKey> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw Self.fail("object key expected at offset \(index)") }
            let keyOffset = index
            let key = try parseString()
            // By code points (their UTF-8 bytes), not by String equality, which folds canonically
            // equivalent keys. A small object (every payload's) is scanned, nothing hashed; a
            // larger one keeps a set, so that many keys cost linear time, not quadratic.
            let isDuplicate: Bool
            if members.count < Self.scannedMembers {
                isDuplicate = members.contains { CodePointKey.sameCodePoints($0.key, key) }
            } else {
                if seen.isEmpty { seen = Set(members.map { CodePointKey(text: $0.key) }) }
                isDuplicate = !seen.insert(CodePointKey(text: key)).inserted
            }
            guard !isDuplicate else { throw Self.fail("duplicate key at offset \(keyOffset)") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw Self.fail("':' expected at offset \(index)") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw Self.fail("',' or '}' expected at offset \(index)")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> StrictJSON {
        guard depth <= ProtocolLimits.maxPayloadNestingDepth else { throw Self.fail("nesting deeper than \(ProtocolLimits.maxPayloadNestingDepth)") }
        index += 1
        var elements: [StrictJSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw Self.fail("',' or ']' expected at offset \(index)")
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as its source text.
    private mutating func parseNumber() throws -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw Self.fail("digit expected at offset \(index)") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, isDigit(digit) else { throw Self.fail("fraction digit expected at offset \(index)") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw Self.fail("exponent digit expected at offset \(index)") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    /// The string's text. The input is valid UTF-8 (checked up front) and a run between
    /// escapes ends at an ASCII byte, so runs are copied as bytes and the text is decoded once;
    /// without escapes (the common case) straight from the input.
    private mutating func parseString() throws -> String {
        index += 1
        var unescaped: [UInt8]?
        var runStart = index
        while true {
            guard let byte = current else { throw Self.fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                let text: String
                if var buffer = unescaped {
                    buffer.append(contentsOf: bytes[runStart..<index])
                    text = String(decoding: buffer, as: UTF8.self)
                } else {
                    text = String(decoding: bytes[runStart..<index], as: UTF8.self)
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                var buffer = unescaped ?? []
                unescaped = nil
                buffer.append(contentsOf: bytes[runStart..<index])
                index += 1
                UTF8.encode(try parseEscape()) { buffer.append($0) }
                unescaped = buffer
                runStart = index
            case 0x00..<0x20:
                throw Self.fail("control character in string at offset \(index)")
            default:
                index += 1
            }
        }
    }

    private mutating func parseEscape() throws -> Unicode.Scalar {
        guard let byte = current else { throw Self.fail("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            switch unit {
            case 0xD800...0xDBFF:
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw Self.fail("lone surrogate at offset \(index)")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Self.fail("lone surrogate at offset \(index)") }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw Self.fail("invalid escape at offset \(index)") }
                return scalar
            case 0xDC00...0xDFFF:
                throw Self.fail("lone surrogate at offset \(index)")
            default:
                guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw Self.fail("invalid escape at offset \(index)") }
                return scalar
            }
        default:
            throw Self.fail("invalid escape at offset \(index)")
        }
    }

    private mutating func parseHex4() throws -> UInt16 {
        guard bytes.count - index >= 4 else { throw Self.fail("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Self.fail("invalid \\u escape at offset \(index)")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}

/// An object key compared and hashed by its code points (its UTF-8 bytes): two keys that differ
/// only by Unicode normalisation are different keys, which `String`'s equality would fold.
private struct CodePointKey: Hashable {
    let text: String

    /// Whether `a` and `b` have the same code points.
    static func sameCodePoints(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    static func == (lhs: CodePointKey, rhs: CodePointKey) -> Bool { sameCodePoints(lhs.text, rhs.text) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
