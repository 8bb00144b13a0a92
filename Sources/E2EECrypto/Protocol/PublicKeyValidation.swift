/// The checks docs/spec/protocol.md §0 requires of every public key received from anyone.
extension X25519.PublicKey {
    /// The low-order points of Curve25519 in canonical encoding: 0, 1, p−1 (2^255−20), and the
    /// two points of order 8.
    static let lowOrderPoints: Set<[UInt8]> = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        [0xec] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
         0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00],
        [0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
         0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57],
    ]

    /// A received X25519 key: 32 bytes, canonical (bit 255 clear, value < 2^255−19) and not a
    /// low-order point.
    /// - Throws: ``ProtocolError/invalidKey(_:)`` naming `location`.
    public static func received(_ bytes: [UInt8], at location: WireLocation) throws -> X25519.PublicKey {
        guard bytes.count == X25519.keyLength, isCanonical(bytes), !lowOrderPoints.contains(bytes) else {
            throw ProtocolError.invalidKey(location)
        }
        return try X25519.PublicKey(rawRepresentation: bytes)
    }

    /// Little-endian value < 2^255 − 19 with bit 255 clear.
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes[31] & 0x80 == 0 else { return false }
        // p = 2^255 − 19 = 7f ff … ff ed (little-endian: ed ff … ff 7f). Non-canonical values are
        // p … 2^255−1: top byte 0x7f, bytes 30…1 all 0xff, low byte ≥ 0xed.
        guard bytes[31] == 0x7f, bytes[1...30].allSatisfy({ $0 == 0xff }) else { return true }
        return bytes[0] < 0xed
    }
}

extension Ed25519.PublicKey {
    /// A received Ed25519 key: 32 bytes that decode to a point with `y < p`, not of small order.
    /// - Throws: ``ProtocolError/invalidKey(_:)`` naming `location`.
    public static func received(_ bytes: [UInt8], at location: WireLocation) throws -> Ed25519.PublicKey {
        do {
            return try Ed25519.PublicKey(rawRepresentation: bytes).validated()
        } catch {
            throw ProtocolError.invalidKey(location)
        }
    }
}
