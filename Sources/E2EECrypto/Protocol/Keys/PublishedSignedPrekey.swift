/// The public form of a signed prekey: `0x01 || spk_id(u32) || SPK_pub(32)`, 37 bytes
/// (PROTOCOL.md §1). Its signature covers ``signedMessage``.
public struct PublishedSignedPrekey: Sendable, Hashable {
    /// The version byte.
    public static let version: UInt8 = 0x01
    /// The length in bytes.
    public static let length = 37
    /// The label prefixed to the 37 bytes before signing.
    public static let signatureLabel = Array("e2ee-spk-v1".utf8)

    /// `spk_id`, never 0.
    public let id: UInt32
    /// `SPK_pub`.
    public let publicKey: X25519.PublicKey

    /// Wraps a locally made key (no checks).
    init(id: UInt32, publicKey: X25519.PublicKey) {
        self.id = id
        self.publicKey = publicKey
    }

    /// Parses the 37 bytes strictly.
    /// - Throws: at ``WireLocation/signedPrekey``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0, ``ProtocolError/invalidKey(_:)``.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .signedPrekey)
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(.signedPrekey, value: version) }
        id = try reader.readUInt32()
        guard id != 0 else { throw ProtocolError.malformed(.signedPrekey, reason: "spk_id 0") }
        publicKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .signedPrekey)
        try reader.requireEnd()
    }

    /// Parses the published `signed_pre_key` string.
    /// - Throws: base64 faults as ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)``, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .signedPrekey))
    }

    /// The 37 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(Self.version)
        writer.write(id)
        writer.write(publicKey.rawRepresentation)
        return writer.bytes
    }

    /// The published `signed_pre_key` string.
    public var base64: String { Base64.encode(bytes) }

    /// What the identity signing key signs: `"e2ee-spk-v1" || bytes`.
    public var signedMessage: [UInt8] { Self.signatureLabel + bytes }
}
