/// Any envelope this core writes in a message's `content` (docs/spec/protocol.md §5).
public enum Envelope: Sendable, Hashable {
    /// A direct message.
    case dm(DMEnvelope)
    /// A group message.
    case group(GroupEnvelope)
    /// A sender key distribution.
    case senderKeyDistribution(SKDEnvelope)

    /// The envelope's kind.
    public var kind: EnvelopeKind {
        switch self {
        case .dm: .dm
        case .group: .group
        case .senderKeyDistribution: .senderKeyDistribution
        }
    }

    /// The sending device the envelope claims (checked by ``SenderDeviceRule``).
    public var senderDevice: WireUUID {
        switch self {
        case .dm(let envelope): envelope.senderDevice
        case .group(let envelope): envelope.senderDevice
        case .senderKeyDistribution(let envelope): envelope.senderDevice
        }
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] {
        switch self {
        case .dm(let envelope): envelope.encoded()
        case .group(let envelope): envelope.encoded()
        case .senderKeyDistribution(let envelope): envelope.encoded()
        }
    }

    /// The message's `content`: the envelope in canonical base64.
    public func content() -> String { Base64.encode(encoded()) }

    /// Strictly decodes envelope bytes of any kind.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` or ``ProtocolError/unsupportedVersion(_:value:)``
    ///   at ``WireLocation/content`` for an unknown format or type byte, else the decoder's errors.
    public static func decode(_ bytes: [UInt8]) throws -> Envelope {
        guard bytes.count >= 2 else { throw ProtocolError.truncated(.content, expected: 2, actual: bytes.count) }
        guard bytes[0] == EnvelopeTypeByte.format else { throw ProtocolError.unsupportedVersion(.content, value: bytes[0]) }
        switch bytes[1] {
        case DMEnvelope.typeBytes[1]: return .dm(try DMEnvelope.decode(bytes))
        case GroupEnvelope.typeBytes[1]: return .group(try GroupEnvelope.decode(bytes))
        case SKDEnvelope.typeBytes[1]: return .senderKeyDistribution(try SKDEnvelope.decode(bytes))
        default: throw ProtocolError.unsupportedVersion(.content, value: bytes[1])
        }
    }

    /// SHA-256 of envelope bytes: with the channel, what identifies any envelope for dedupe (§6).
    public static func hash(of bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }
}

/// The three envelope types, their `content_type` strings and the channels they belong in.
public enum EnvelopeKind: String, Sendable, CaseIterable {
    /// `"e2ee.dm"`, in `x3dh` channels.
    case dm = "e2ee.dm"
    /// `"e2ee.group"`, in `sender_keys` channels.
    case group = "e2ee.group"
    /// `"e2ee.skd"`, in `sender_keys` channels.
    case senderKeyDistribution = "e2ee.skd"

    /// The message `content_type` of this kind.
    public var contentType: String { rawValue }

    /// The channel `encryption_type` this kind is allowed in.
    public var channelEncryption: ChannelEncryptionType {
        switch self {
        case .dm: .x3dh
        case .group, .senderKeyDistribution: .senderKeys
        }
    }
}

/// A channel's `encryption_type` as the server reports it.
public enum ChannelEncryptionType: String, Sendable, CaseIterable {
    /// DMs: pairwise sessions.
    case x3dh = "x3dh"
    /// Groups: sender keys.
    case senderKeys = "sender_keys"
}
