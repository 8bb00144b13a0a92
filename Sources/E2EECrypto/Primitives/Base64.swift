import CSodium
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a base64 string was refused.
public enum Base64Error: Error, Sendable, Equatable {
    /// The string is longer than the caller's limit (checked before decoding).
    case tooLong(length: Int, limit: Int)
    /// The length is not a multiple of 4 (padding is required).
    case invalidLength(Int)
    /// A character outside the standard alphabet, whitespace, or misplaced padding.
    case invalidCharacters
    /// The string decodes, but is not the canonical encoding of its bytes (non-zero padding bits).
    case nonCanonical
}

/// Strict standard base64 (RFC 4648 §4): padding required, no whitespace, no url-safe alphabet,
/// and only the canonical encoding of each byte string is accepted.
public enum Base64 {
    /// The padded standard base64 encoding of `bytes`.
    public static func encode(_ bytes: some ByteView) -> String {
        bytes.withByteView { input in
            let capacity = sodium_base64_encoded_len(input.count, sodium_base64_VARIANT_ORIGINAL)
            return String(unsafeUninitializedCapacity: capacity) { output in
                guard let base = output.baseAddress else { return 0 }
                let raw = UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self)
                _ = sodium_bin2base64(raw, capacity, input.cBase, input.count, sodium_base64_VARIANT_ORIGINAL)
                return capacity - 1 // drop the terminating NUL
            }
        }
    }

    /// Decodes `string`, refusing anything but the canonical padded standard encoding. Its time
    /// depends on the input: it is for public text (wire content, published keys), not secrets.
    /// - Parameters:
    ///   - string: the base64 text.
    ///   - maxEncodedLength: the longest string accepted; checked before any decoding.
    /// - Throws: ``Base64Error``.
    public static func decode(_ string: String, maxEncodedLength: Int) throws(Base64Error) -> [UInt8] {
        let length = string.utf8.count
        guard length <= maxEncodedLength else { throw .tooLong(length: length, limit: maxEncodedLength) }
        guard length % 4 == 0 else { throw .invalidLength(length) }
        // Fast path: Foundation's decoder (libsodium's runs in constant time, ~13 times slower
        // here, which public ciphertext does not need), used only on a string this scan finds to
        // be canonical — the standard alphabet, then at most two `=`, and zero padding bits — so
        // whatever else Foundation would accept never gets here. Anything else takes libsodium's
        // path, which refuses it and says why. (Until the ninth session the check was encoding
        // the bytes back and comparing: a second string the size of the content, per decode.)
        var text = string
        if text.withUTF8(isCanonical), let data = Data(base64Encoded: string) { return [UInt8](data) }
        let decoded: [UInt8]? = text.withUTF8 { input in
            // libsodium 1.0.18 reads most bytes above 0x7F as digits (found by Fuzz/fuzz-base64):
            // outside ASCII nothing is base64, so refuse it before decoding (checked over the
            // contiguous bytes: a pass through `String.UTF8View` cost a third of the decoding).
            guard input.allSatisfy({ $0 < 0x80 }) else { return nil }
            // libsodium's decoder (original variant, nothing ignored) refuses every other
            // non-canonical ASCII string itself: padding required, no stray characters, non-zero
            // padding bits.
            var decodedLength = 0
            var succeeded = false
            let output = [UInt8](unsafeUninitializedCapacity: length / 4 * 3) { buffer, initialized in
                let status = sodium_base642bin(
                    UnsafeMutableRawBufferPointer(buffer).cBase, buffer.count,
                    UnsafeRawPointer(UnsafeRawBufferPointer(input).cBase).assumingMemoryBound(to: CChar.self), input.count,
                    nil, &decodedLength, nil, sodium_base64_VARIANT_ORIGINAL
                )
                succeeded = status == 0
                initialized = succeeded ? decodedLength : 0
            }
            return succeeded ? output : nil
        }
        guard let decoded else {
            // Tell non-zero padding bits apart from stray characters (a byte outside ASCII is one).
            throw text.withUTF8(paddingBitsAreZero) != nil ? .nonCanonical : .invalidCharacters
        }
        return decoded
    }

    /// Whether `input`, whose length is a multiple of 4, is the canonical padded standard
    /// encoding of some bytes.
    static func isCanonical(_ input: UnsafeBufferPointer<UInt8>) -> Bool { paddingBitsAreZero(input) == true }

    /// One scan of `input`, whose length is a multiple of 4: nil when it is not standard-alphabet
    /// characters followed by at most two `=`; otherwise whether the bits the last character
    /// carries beyond the encoded bytes are all zero (true exactly for a canonical encoding).
    private static func paddingBitsAreZero(_ input: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let last = input.last else { return true }  // "" encodes no bytes
        let padding = last != UInt8(ascii: "=") ? 0 : input[input.count - 2] == UInt8(ascii: "=") ? 2 : 1
        var lastValue: UInt8 = 0
        for byte in input[..<(input.count - padding)] {
            lastValue = alphabetValues[Int(byte)]
            guard lastValue < 64 else { return nil }
        }
        // Three characters carry 18 bits for two bytes, two carry 12 bits for one.
        switch padding {
        case 1: return lastValue & 0b11 == 0
        case 2: return lastValue & 0b1111 == 0
        default: return true
        }
    }

    /// The bytes that `text` — whole four-character groups of the standard alphabet, no
    /// padding, such as the start of a longer encoding — encodes; nil when its length is not a
    /// multiple of 4 or a character is outside the alphabet (padding included). Such a text is
    /// always canonical, so this is ``decode(_:maxEncodedLength:)``'s answer for it, read in
    /// place.
    public static func decodeGroups(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(text.count / 4 * 3)
        var index = 0
        while index < text.count {
            let a = alphabetValues[Int(text[index])], b = alphabetValues[Int(text[index + 1])]
            let c = alphabetValues[Int(text[index + 2])], d = alphabetValues[Int(text[index + 3])]
            guard a | b | c | d < 64 else { return nil }
            output.append(a << 2 | b >> 4)
            output.append(b << 4 | c >> 2)
            output.append(c << 6 | d)
            index += 4
        }
        return output
    }

    /// Each byte's value as a standard-alphabet character, 0xFF for any other byte.
    private static let alphabetValues: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            values[Int(character)] = UInt8(value)
        }
        return values
    }()
}
