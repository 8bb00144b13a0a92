/// A pairwise message as it arrives: normal or prekey, told apart by its first byte (docs/spec/protocol.md §3).
public enum PairwiseMessage: Sendable, Hashable {
    /// `0x01`: a message in an existing session.
    case normal(NormalMessage)
    /// `0x02`: a message that carries the X3DH header and may start a session.
    case prekey(PrekeyMessage)

    /// Parses either form strictly.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` below the minimum size,
    ///   ``ProtocolError/unsupportedVersion(_:value:)`` for an unknown type byte, or the errors of
    ///   ``NormalMessage/init(bytes:)`` and ``PrekeyMessage/init(bytes:)``.
    public init(bytes: [UInt8]) throws {
        guard bytes.count >= ProtocolLimits.minPairwiseMessageBytes else {
            throw ProtocolError.truncated(.pairwiseMessage, expected: ProtocolLimits.minPairwiseMessageBytes, actual: bytes.count)
        }
        switch bytes[0] {
        case NormalMessage.type: self = .normal(try NormalMessage(bytes: bytes))
        case PrekeyMessage.type: self = .prekey(try PrekeyMessage(bytes: bytes))
        case let other: throw ProtocolError.unsupportedVersion(.pairwiseMessage, value: other)
        }
    }

    /// The wire bytes.
    public var bytes: [UInt8] {
        switch self {
        case .normal(let message): message.bytes
        case .prekey(let message): message.bytes
        }
    }
}
