/// The public form of a one-time prekey: `0x01 || opk_id(u32) || OPK_pub(32)` (PROTOCOL.md §1).
public struct PublishedOneTimePrekey: Sendable, Hashable {
    /// The version byte.
    public static let version: UInt8 = 0x01
    /// The length in bytes.
    public static let length = 37

    /// `opk_id`, never 0.
    public let id: UInt32
    /// `OPK_pub`.
    public let publicKey: X25519.PublicKey

    /// Wraps a locally made key (no checks).
    init(id: UInt32, publicKey: X25519.PublicKey) {
        self.id = id
        self.publicKey = publicKey
    }

    /// Parses the 37 bytes strictly.
    /// - Throws: at ``WireLocation/oneTimePrekey``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0, ``ProtocolError/invalidKey(_:)``.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .oneTimePrekey)
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(.oneTimePrekey, value: version) }
        id = try reader.readUInt32()
        guard id != 0 else { throw ProtocolError.malformed(.oneTimePrekey, reason: "opk_id 0") }
        publicKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .oneTimePrekey)
        try reader.requireEnd()
    }

    /// Parses a published one-time prekey string.
    /// - Throws: base64 faults as ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)``, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .oneTimePrekey))
    }

    /// The 37 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(Self.version)
        writer.write(id)
        writer.write(publicKey.rawRepresentation)
        return writer.bytes
    }

    /// The published string.
    public var base64: String { Base64.encode(bytes) }
}
