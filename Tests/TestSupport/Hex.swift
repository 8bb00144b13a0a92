/// Errors from decoding hex test data.
public enum HexError: Error, Equatable {
    /// Odd length or a character outside 0-9, a-f, A-F.
    case malformed(String)
}

/// Lower-case hex helpers for test vectors.
public enum Hex {
    /// Decodes a hex string (either case).
    /// - Throws: ``HexError/malformed(_:)``.
    public static func decode(_ text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw HexError.malformed(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else {
                throw HexError.malformed(text)
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Encodes bytes as lower-case hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let table = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
