/// What a pairwise (Double Ratchet) message carries in this protocol (docs/spec/protocol.md §3.16): a
/// type byte, then a DM key entry (`0x01`, §5) or a sender key distribution (`0x02`, §4). Type
/// `0x03` is a link plaintext, carried only by a ``LinkEnvelope`` and read by ``LinkPlaintext``.
public enum PairwisePlaintext: Sendable, CustomStringConvertible {
    /// Type byte of a DM key entry.
    public static let dmKeyType: UInt8 = 0x01
    /// Type byte of an SKD.
    public static let senderKeyDistributionType: UInt8 = 0x02
    /// Type byte of link plaintexts (§3.16, §10.22): never accepted in a DM or SKD entry
    /// (``ProtocolError/wrongEnvelopeType``); ``LinkPlaintext/decode(_:)`` reads them.
    public static let reservedLinkType: UInt8 = 0x03

    /// A DM's per-message key and the hash of the payload it opens.
    case dmKey(DMKeyEntry)
    /// A sender key distribution.
    case senderKeyDistribution(SenderKeyDistribution)

    /// The plaintext bytes to encrypt pairwise.
    public func encoded() -> SecretBytes {
        switch self {
        case .dmKey(let entry):
            SecretWireWriter.build(count: 1 + DMKeyEntry.length) { writer in
                writer.write(Self.dmKeyType)
                writer.write(entry.key)
                writer.write(entry.payloadHash)
            }
        case .senderKeyDistribution(let skd):
            SecretWireWriter.build(count: 1 + SenderKeyDistribution.plaintextLength) { writer in
                writer.write(Self.senderKeyDistributionType)
                skd.writeFields(into: &writer)
            }
        }
    }

    /// Strictly decodes a decrypted pairwise plaintext: known type byte, exact length.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` or ``ProtocolError/unsupportedVersion(_:value:)``
    ///   at ``WireLocation/pairwisePlaintext``, ``ProtocolError/wrongEnvelopeType`` for the
    ///   link type ``reservedLinkType`` (a plaintext that belongs in a link envelope, never
    ///   in a DM or SKD entry), ``ProtocolError/trailingBytes(_:count:)``, or the errors of
    ///   ``SenderKeyDistribution/decode(_:)``.
    public static func decode(_ bytes: SecretBytes) throws -> PairwisePlaintext {
        var reader = SecretWireReader(bytes, location: .pairwisePlaintext)
        let type = try reader.readUInt8()
        let result: PairwisePlaintext
        switch type {
        case dmKeyType:
            let key = try reader.readSecret(DMKeyEntry.keyLength)
            let hash = try reader.readPublic(SHA256.digestLength)
            result = .dmKey(DMKeyEntry(key: key, payloadHash: hash))
        case senderKeyDistributionType:
            result = .senderKeyDistribution(try SenderKeyDistribution.decodeFields(from: &reader))
        case reservedLinkType:
            // A link plaintext is refused whatever follows its type byte: a DM or SKD entry
            // never carries one (a link envelope's is read by LinkPlaintext.decode).
            throw ProtocolError.wrongEnvelopeType
        default:
            throw ProtocolError.unsupportedVersion(.pairwisePlaintext, value: type)
        }
        try reader.requireEnd()
        return result
    }

    /// Never shows key material.
    public var description: String {
        switch self {
        case .dmKey: "PairwisePlaintext.dmKey(<redacted>)"
        case .senderKeyDistribution(let skd): "PairwisePlaintext.senderKeyDistribution(\(skd))"
        }
    }
}

/// The pairwise plaintext of a DM recipient entry: `K(32) || SHA-256(payload_nonce || payload_ct)(32)`.
public struct DMKeyEntry: Sendable, CustomStringConvertible {
    /// Length after the type byte.
    public static let length = 64
    /// Length of `K`.
    public static let keyLength = 32

    /// The per-message key `K` (secret).
    let key: SecretBytes
    /// `SHA-256(payload_nonce || payload_ct)`.
    public let payloadHash: [UInt8]

    init(key: SecretBytes, payloadHash: [UInt8]) {
        self.key = key
        self.payloadHash = payloadHash
    }

    /// Never shows `K`.
    public var description: String { "DMKeyEntry(<redacted>)" }
}
