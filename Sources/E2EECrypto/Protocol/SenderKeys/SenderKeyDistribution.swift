/// A sender key distribution (docs/spec/protocol.md §4): what a receiver needs to read a sender key's
/// messages from `iteration` on. Its plaintext is exactly 88 bytes,
/// `channel_id(16) || key_id(u32) || iteration(u32) || CK_iteration(32) || SK_sig_pub(32)`,
/// and it travels only inside pairwise-encrypted messages (type byte `0x02`).
public struct SenderKeyDistribution: Sendable, Equatable, CustomStringConvertible {
    /// Length of the plaintext after its type byte.
    public static let plaintextLength = 88

    /// The channel the sender key belongs to.
    public let channel: WireUUID
    /// The sender key's id.
    public let keyID: UInt32
    /// The iteration `chainKey` belongs to.
    public let iteration: UInt32
    /// `CK_iteration` (secret).
    let chainKey: SecretBytes
    /// `SK_sig_pub`, checked when parsed.
    public let signingPublicKey: Ed25519.PublicKey

    init(channel: WireUUID, keyID: UInt32, iteration: UInt32, chainKey: SecretBytes, signingPublicKey: Ed25519.PublicKey) {
        self.channel = channel
        self.keyID = keyID
        self.iteration = iteration
        self.chainKey = chainKey
        self.signingPublicKey = signingPublicKey
    }

    /// The 88 plaintext bytes (without the pairwise type byte).
    public func encoded() -> SecretBytes {
        SecretWireWriter.build(count: Self.plaintextLength) { writer in
            writeFields(into: &writer)
        }
    }

    func writeFields(into writer: inout SecretWireWriter) {
        writer.write(channel.bytes)
        writer.write(keyID)
        writer.write(iteration)
        writer.write(chainKey)
        writer.write(signingPublicKey.rawRepresentation)
    }

    /// Strictly decodes the 88 plaintext bytes (without the pairwise type byte).
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` or
    ///   ``ProtocolError/trailingBytes(_:count:)`` for another length,
    ///   ``ProtocolError/invalidKey(_:)`` for an unusable signing key (all at
    ///   ``WireLocation/skdPlaintext``).
    public static func decode(_ bytes: SecretBytes) throws -> SenderKeyDistribution {
        var reader = SecretWireReader(bytes, location: .skdPlaintext)
        let result = try decodeFields(from: &reader)
        try reader.requireEnd()
        return result
    }

    static func decodeFields(from reader: inout SecretWireReader) throws -> SenderKeyDistribution {
        let channel = try reader.readUUID()
        let keyID = try reader.readUInt32()
        let iteration = try reader.readUInt32()
        let chainKey = try reader.readSecret(SenderKeyChain.keyLength)
        let signing = try Ed25519.PublicKey.received(reader.readPublic(Ed25519.publicKeyLength), at: .skdPlaintext)
        return SenderKeyDistribution(channel: channel, keyID: keyID, iteration: iteration, chainKey: chainKey, signingPublicKey: signing)
    }

    /// Never shows the chain key.
    public var description: String {
        "SenderKeyDistribution(channel: \(channel), keyID: \(keyID), iteration: \(iteration), <redacted>)"
    }
}
