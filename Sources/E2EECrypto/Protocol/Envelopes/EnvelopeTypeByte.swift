/// The two leading bytes every envelope starts with: `0x03` (this envelope format), then the
/// envelope type (`0x01` DM, `0x02` group, `0x03` SKD).
enum EnvelopeTypeByte {
    /// The envelope format byte that tells this core's envelopes apart from other formats.
    static let format: UInt8 = 0x03

    /// Checks that `bytes` starts with `0x03 || type`.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` for fewer than two bytes,
    ///   ``ProtocolError/unsupportedVersion(_:value:)`` for another format or type byte.
    static func require(_ bytes: [UInt8], type: UInt8, at location: WireLocation) throws {
        guard bytes.count >= 2 else { throw ProtocolError.truncated(location, expected: 2, actual: bytes.count) }
        guard bytes[0] == format else { throw ProtocolError.unsupportedVersion(location, value: bytes[0]) }
        guard bytes[1] == type else { throw ProtocolError.unsupportedVersion(location, value: bytes[1]) }
    }
}
