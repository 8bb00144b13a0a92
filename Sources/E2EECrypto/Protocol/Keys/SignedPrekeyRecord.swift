/// A device's published signed prekey, the record of protocol text 1.3 (docs/spec/protocol.md §1.4):
/// `0x02 || spk_id (u32) || SPK_pub (32) || cert (104)`, 141 bytes (188 base64 characters).
/// The device's identity signing key `SIG` signs ``signedMessage``; the certificate inside is
/// ``DeviceCertificate/zero`` until the device is linked under a user key.
public struct SignedPrekeyRecord: Sendable, Hashable {
    /// The version byte (`0x01`, text 1.2's 37-byte form, is refused).
    public static let version: UInt8 = 0x02
    /// The length in bytes.
    public static let length = 1 + 4 + X25519.keyLength + DeviceCertificate.length
    /// The label prefixed to the 141 bytes before `SIG` signs them.
    public static let signatureLabel = Array("e2ee-spk-v2".utf8)

    /// `spk_id`, never 0.
    public let id: UInt32
    /// `SPK_pub`.
    public let publicKey: X25519.PublicKey
    /// The certificate the device publishes (``DeviceCertificate/zero``: none).
    public let certificate: DeviceCertificate

    /// Wraps a locally made key (no checks).
    public init(id: UInt32, publicKey: X25519.PublicKey, certificate: DeviceCertificate = .zero) {
        self.id = id
        self.publicKey = publicKey
        self.certificate = certificate
    }

    /// Parses the 141 bytes strictly: the version byte first, then the length, then the fields.
    /// - Throws: at ``WireLocation/signedPrekey``: ``ProtocolError/unsupportedVersion(_:value:)``
    ///   (text 1.2's record is version `0x01`), ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/malformed(_:reason:)`` for id 0,
    ///   ``ProtocolError/invalidKey(_:)``; the certificate's errors as
    ///   ``DeviceCertificate/init(bytes:)`` throws them.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .signedPrekey)
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(.signedPrekey, value: version) }
        guard bytes.count >= Self.length else { throw ProtocolError.truncated(.signedPrekey, expected: Self.length, actual: bytes.count) }
        guard bytes.count == Self.length else { throw ProtocolError.trailingBytes(.signedPrekey, count: bytes.count - Self.length) }
        id = try reader.readUInt32()
        guard id != 0 else { throw ProtocolError.malformed(.signedPrekey, reason: "spk_id 0") }
        publicKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .signedPrekey)
        certificate = try DeviceCertificate(reading: &reader)
        try reader.requireEnd()
    }

    /// Parses the published `signed_pre_key` string.
    /// - Throws: base64 faults as ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)``, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .signedPrekey))
    }

    /// The 141 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(Self.version)
        writer.write(id)
        writer.write(publicKey.rawRepresentation)
        writer.write(certificate.bytes)
        return writer.bytes
    }

    /// The published `signed_pre_key` string.
    public var base64: String { Base64.encode(bytes) }

    /// What the identity signing key signs: `"e2ee-spk-v2" || bytes`.
    public var signedMessage: [UInt8] { Self.signatureLabel + bytes }

    /// `SIG`'s signature over this record (the published `signed_pre_key_signature`, before
    /// base64), by `identity`. A device signs only records of its own keys.
    public func signature(by identity: IdentityKeyPair) -> [UInt8] {
        identity.signingKey.signature(for: signedMessage)
    }
}
