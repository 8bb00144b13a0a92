/// A prekey message: `0x02 || identity_blob_A(65) || EK_A(32) || spk_id(u32) || opk_id(u32) || normal`
/// (docs/spec/protocol.md §3). The X3DH header travels here, so nothing depends on the server's x3dh slot.
public struct PrekeyMessage: Sendable, Hashable {
    /// The type byte.
    public static let type: UInt8 = 0x02
    /// The shortest valid prekey message: type, blob, base key, two ids and a minimal normal message.
    public static let minimumLength = 1 + IdentityBlob.length + X25519.keyLength + 8 + ProtocolLimits.minPairwiseMessageBytes

    /// The initiator's identity blob.
    public let identity: IdentityBlob
    /// The initiator's ephemeral key `EK_A` (the session's base key).
    public let baseKey: X25519.PublicKey
    /// The responder's signed prekey id (never 0).
    public let signedPrekeyID: UInt32
    /// The responder's one-time prekey id, 0 when none was used.
    public let oneTimePrekeyID: UInt32
    /// The enclosed normal message.
    public let message: NormalMessage

    init(identity: IdentityBlob, baseKey: X25519.PublicKey, signedPrekeyID: UInt32, oneTimePrekeyID: UInt32, message: NormalMessage) {
        self.identity = identity
        self.baseKey = baseKey
        self.signedPrekeyID = signedPrekeyID
        self.oneTimePrekeyID = oneTimePrekeyID
        self.message = message
    }

    /// Parses a prekey message strictly.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` below ``minimumLength``,
    ///   ``ProtocolError/unsupportedVersion(_:value:)``, ``ProtocolError/invalidKey(_:)`` (blob,
    ///   base key or ratchet key), ``ProtocolError/malformed(_:reason:)`` for `spk_id` 0.
    public init(bytes: [UInt8]) throws {
        guard bytes.count >= Self.minimumLength else {
            throw ProtocolError.truncated(.prekeyMessage, expected: Self.minimumLength, actual: bytes.count)
        }
        var reader = WireReader(bytes, location: .prekeyMessage)
        let type = try reader.readUInt8()
        guard type == Self.type else { throw ProtocolError.unsupportedVersion(.prekeyMessage, value: type) }
        identity = try IdentityBlob(reading: &reader)
        baseKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .prekeyMessage)
        signedPrekeyID = try reader.readUInt32()
        guard signedPrekeyID != 0 else { throw ProtocolError.malformed(.prekeyMessage, reason: "spk_id 0") }
        oneTimePrekeyID = try reader.readUInt32()
        message = try NormalMessage(reading: &reader)
    }

    /// The wire bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(Self.type)
        writer.write(identity.bytes)
        writer.write(baseKey.rawRepresentation)
        writer.write(signedPrekeyID)
        writer.write(oneTimePrekeyID)
        writer.write(message.bytes)
        return writer.bytes
    }
}
