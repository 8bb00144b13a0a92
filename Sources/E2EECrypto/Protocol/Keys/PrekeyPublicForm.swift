/// The 37-byte public form of a one-time prekey (text 1.2's signed prekey form too, which text
/// 1.3 replaced by ``SignedPrekeyRecord``): `0x01 || id(u32) || X25519 public key(32)`
/// (docs/spec/protocol.md §1).
enum PrekeyPublicForm {
    /// The version byte.
    static let version: UInt8 = 0x01
    /// The length in bytes.
    static let length = 37

    /// Parses the form strictly, reporting faults at `location`.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/unsupportedVersion(_:value:)``, ``ProtocolError/malformed(_:reason:)`` for
    ///   id 0, ``ProtocolError/invalidKey(_:)``.
    static func parse(_ bytes: [UInt8], at location: WireLocation, idName: String) throws -> (id: UInt32, publicKey: X25519.PublicKey) {
        var reader = WireReader(bytes, location: location)
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(location, value: version) }
        let id = try reader.readUInt32()
        guard id != 0 else { throw ProtocolError.malformed(location, reason: "\(idName) 0") }
        let publicKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: location)
        try reader.requireEnd()
        return (id, publicKey)
    }

    /// The 37 bytes of `id` and `publicKey`.
    static func encode(id: UInt32, publicKey: X25519.PublicKey) -> [UInt8] {
        var writer = WireWriter()
        writer.write(version)
        writer.write(id)
        writer.write(publicKey.rawRepresentation)
        return writer.bytes
    }
}
