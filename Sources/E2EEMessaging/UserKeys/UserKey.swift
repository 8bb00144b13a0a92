/// A user key (`UMK_pub`, docs/spec/protocol.md §10): the Ed25519 public key a user's primary device
/// certifies the user's devices with. Public; shown and typed as its ``fingerprint``.
public struct UserKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the public key.
    public let publicKey: [UInt8]

    /// Wraps 32 bytes; `nil` for another length.
    public init?(publicKey: [UInt8]) {
        guard publicKey.count == 32 else { return nil }
        self.publicKey = publicKey
    }

    /// Parses a fingerprint (64 hexadecimal digits, either case, spaces ignored); `nil` when malformed.
    public init?(fingerprint: String) {
        let digits = Array(fingerprint.filter { !$0.isWhitespace }.lowercased().utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.publicKey = bytes
    }

    /// The key as 64 lower-case hexadecimal digits.
    public var fingerprint: String {
        publicKey.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// The fingerprint.
    public var description: String { fingerprint }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
