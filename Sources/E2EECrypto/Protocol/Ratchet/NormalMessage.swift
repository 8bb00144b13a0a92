/// A normal pairwise message: `0x01 || header(52) || ciphertext_with_tag` (docs/spec/protocol.md §3).
public struct NormalMessage: Sendable, Hashable {
    /// The type byte.
    public static let type: UInt8 = 0x01

    /// The ratchet header (authenticated as associated data).
    public let header: MessageHeader
    /// AES-256-GCM ciphertext followed by its 16-byte tag.
    public let ciphertext: [UInt8]

    init(header: MessageHeader, ciphertext: [UInt8]) {
        self.header = header
        self.ciphertext = ciphertext
    }

    /// Parses a normal message strictly.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` below
    ///   ``ProtocolLimits/minPairwiseMessageBytes``, ``ProtocolError/unsupportedVersion(_:value:)``
    ///   for another type byte, ``ProtocolError/invalidKey(_:)`` for a bad ratchet key.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .normalMessage)
        try self.init(reading: &reader)
    }

    /// Reads a normal message that runs to the end of `reader`.
    init(reading reader: inout WireReader) throws {
        guard reader.remainingCount >= ProtocolLimits.minPairwiseMessageBytes else {
            throw ProtocolError.truncated(.normalMessage, expected: ProtocolLimits.minPairwiseMessageBytes, actual: reader.remainingCount)
        }
        let type = try reader.readUInt8()
        guard type == Self.type else { throw ProtocolError.unsupportedVersion(.normalMessage, value: type) }
        header = try MessageHeader(reading: &reader)
        ciphertext = reader.readRemaining()
    }

    /// The wire bytes.
    public var bytes: [UInt8] { [Self.type] + header.bytes + ciphertext }
}
