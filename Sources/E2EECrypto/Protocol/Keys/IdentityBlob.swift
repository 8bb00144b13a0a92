/// A device's published identity: the 65-byte blob `0x01 || IK_pub(32) || SIG_pub(32)`
/// (docs/spec/protocol.md §1). It is public; two blobs are equal when their bytes are.
public struct IdentityBlob: Sendable, Hashable, CustomStringConvertible {
    /// The version byte every blob starts with.
    public static let version: UInt8 = 0x01
    /// The blob's length in bytes.
    public static let length = 65

    /// The X25519 identity key `IK`.
    public let dhKey: X25519.PublicKey
    /// The Ed25519 identity signing key `SIG`, which signs prekeys.
    public let signingKey: Ed25519.PublicKey

    /// The blob of this device's own keys (no checks: the keys were made locally).
    public init(dhKey: X25519.PublicKey, signingKey: Ed25519.PublicKey) {
        self.dhKey = dhKey
        self.signingKey = signingKey
    }

    /// Parses a received blob strictly: exactly 65 bytes, version `0x01`, a canonical X25519 key
    /// of large order and a valid Ed25519 point.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``
    ///   or ``ProtocolError/invalidKey(_:)``, all at ``WireLocation/identityBlob``.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .identityBlob)
        try self.init(reading: &reader)
        try reader.requireEnd()
    }

    /// Reads a blob from the middle of a larger structure.
    init(reading reader: inout WireReader) throws {
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(.identityBlob, value: version) }
        dhKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .identityBlob)
        signingKey = try Ed25519.PublicKey.received(reader.readBytes(Ed25519.publicKeyLength), at: .identityBlob)
    }

    /// Parses the published `identity_key` string (strict base64, then ``init(bytes:)``).
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` for bad base64, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .identityBlob))
    }

    /// The 65 bytes.
    public var bytes: [UInt8] { [Self.version] + dhKey.rawRepresentation + signingKey.rawRepresentation }

    /// The published `identity_key` string.
    public var base64: String { Base64.encode(bytes) }

    /// The blob in base64 (it is public).
    public var description: String { "IdentityBlob(\(base64))" }
}
