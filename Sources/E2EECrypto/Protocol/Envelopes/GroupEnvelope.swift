/// A group message's envelope (docs/spec/protocol.md §5, `content_type = "e2ee.group"`):
/// `0x03 0x02 || sender_device_id(16) || key_id(u32) || iteration(u32) || nonce(12) || ct || sig(64)`.
///
/// `ct` is AES-256-GCM under the sender key's iteration key and the envelope's random nonce,
/// with associated data `"e2ee-group-aad-v2" || channel_id || the 38 header bytes`; `sig` is
/// Ed25519 by the sender key's signing key over `"e2ee-group-sig-v2" || channel_id || every byte
/// before sig`. The nonce is drawn at random per message, so an iteration used twice (a
/// restored store) never repeats a key and nonce.
public struct GroupEnvelope: Sendable, Hashable {
    /// The two leading bytes: envelope format `0x03`, type `0x02`.
    public static let typeBytes: [UInt8] = [0x03, 0x02]
    /// Bytes before `ct`: type bytes, sender device, key id, iteration and nonce.
    public static let headerLength = 38
    /// The length of the random AES-256-GCM nonce.
    public static let nonceLength = 12
    private static let aadLabel = Array("e2ee-group-aad-v2".utf8)
    private static let signatureLabel = Array("e2ee-group-sig-v2".utf8)

    /// The sending device.
    public let senderDevice: WireUUID
    /// The sender key that encrypted and signed it.
    public let keyID: UInt32
    /// The chain iteration whose key encrypted it.
    public let iteration: UInt32
    /// The random AES-256-GCM nonce (public).
    public let nonce: [UInt8]
    /// `ciphertext || tag` of the payload.
    public let ciphertext: [UInt8]
    /// The 64-byte Ed25519 signature.
    public let signature: [UInt8]

    /// Assembles an envelope, checking the field lengths.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` for a ciphertext outside
    ///   ``ProtocolLimits/payloadCiphertextRange``, ``ProtocolError/malformed(_:reason:)`` for a
    ///   nonce that is not 12 bytes or a signature that is not 64 bytes.
    public init(senderDevice: WireUUID, keyID: UInt32, iteration: UInt32, nonce: [UInt8], ciphertext: [UInt8], signature: [UInt8]) throws {
        try Self.checkCiphertextLength(ciphertext.count)
        guard nonce.count == Self.nonceLength else {
            throw ProtocolError.malformed(.groupEnvelope, reason: "nonce of \(nonce.count) bytes")
        }
        guard signature.count == Ed25519.signatureLength else {
            throw ProtocolError.malformed(.groupEnvelope, reason: "signature of \(signature.count) bytes")
        }
        self.senderDevice = senderDevice
        self.keyID = keyID
        self.iteration = iteration
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.signature = signature
    }

    /// The 38 bytes before `ct`.
    public var header: [UInt8] {
        Self.header(senderDevice: senderDevice, keyID: keyID, iteration: iteration, nonce: nonce)
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] { header + ciphertext + signature }

    /// The chain position of the message: different bytes at a used position are refused (§6).
    public func identity(channel: WireUUID) -> GroupMessageIdentity {
        GroupMessageIdentity(channel: channel, senderDevice: senderDevice, keyID: keyID, iteration: iteration)
    }

    /// Strictly decodes group envelope bytes.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)`` for other type bytes,
    ///   ``ProtocolError/truncated(_:expected:actual:)`` when too short, and
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` for an oversized ciphertext.
    public static func decode(_ bytes: [UInt8]) throws -> GroupEnvelope {
        try EnvelopeTypeByte.require(bytes, type: typeBytes[1], at: .groupEnvelope)
        let minimum = headerLength + ProtocolLimits.payloadCiphertextRange.lowerBound + Ed25519.signatureLength
        guard bytes.count >= minimum else { throw ProtocolError.truncated(.groupEnvelope, expected: minimum, actual: bytes.count) }
        let ciphertextLength = bytes.count - headerLength - Ed25519.signatureLength
        try checkCiphertextLength(ciphertextLength)
        var reader = WireReader(bytes, location: .groupEnvelope)
        _ = try reader.readBytes(2)
        let device = try reader.readUUID()
        let keyID = try reader.readUInt32()
        let iteration = try reader.readUInt32()
        let nonce = try reader.readBytes(nonceLength)
        let ciphertext = try reader.readBytes(ciphertextLength)
        let signature = try reader.readBytes(Ed25519.signatureLength)
        try reader.requireEnd()
        return try GroupEnvelope(senderDevice: device, keyID: keyID, iteration: iteration, nonce: nonce, ciphertext: ciphertext, signature: signature)
    }

    static func header(senderDevice: WireUUID, keyID: UInt32, iteration: UInt32, nonce: [UInt8]) -> [UInt8] {
        var writer = WireWriter()
        writer.write(typeBytes)
        writer.write(senderDevice)
        writer.write(keyID)
        writer.write(iteration)
        writer.write(nonce)
        return writer.bytes
    }

    /// `"e2ee-group-aad-v2" || channel_id || header`.
    static func associatedData(channel: WireUUID, header: [UInt8]) -> [UInt8] {
        aadLabel + channel.bytes + header
    }

    /// `"e2ee-group-sig-v2" || channel_id || header || ct`.
    static func signedBytes(channel: WireUUID, header: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        signatureLabel + channel.bytes + header + ciphertext
    }

    /// Verifies the signature for `channel` with the sender key's public signing key.
    /// - Throws: ``ProtocolError/badSignature``.
    func verifySignature(channel: WireUUID, signingKey: Ed25519.PublicKey) throws {
        let message = Self.signedBytes(channel: channel, header: header, ciphertext: ciphertext)
        guard signingKey.isValidSignature(signature, for: message) else { throw ProtocolError.badSignature }
    }

    private static func checkCiphertextLength(_ length: Int) throws {
        let range = ProtocolLimits.payloadCiphertextRange
        guard length >= range.lowerBound else { throw ProtocolError.truncated(.groupEnvelope, expected: range.lowerBound, actual: length) }
        guard length <= range.upperBound else { throw ProtocolError.limitExceeded(.groupEnvelope, limit: range.upperBound, actual: length) }
    }
}

/// A group message's chain position (docs/spec/protocol.md §6): (channel, sender device, `key_id`,
/// iteration). Different bytes claiming a used position are refused.
public struct GroupMessageIdentity: Sendable, Hashable {
    /// The channel it was posted in.
    public let channel: WireUUID
    /// The sending device.
    public let senderDevice: WireUUID
    /// The sender key.
    public let keyID: UInt32
    /// The chain iteration.
    public let iteration: UInt32

    /// Creates an identity.
    public init(channel: WireUUID, senderDevice: WireUUID, keyID: UInt32, iteration: UInt32) {
        self.channel = channel
        self.senderDevice = senderDevice
        self.keyID = keyID
        self.iteration = iteration
    }
}
