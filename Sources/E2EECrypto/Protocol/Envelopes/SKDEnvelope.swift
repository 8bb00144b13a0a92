/// A sender key distribution envelope (docs/spec/protocol.md §5, `content_type = "e2ee.skd"`, posted in
/// the group channel): `0x03 0x03 || sender_device_id(16) || n(u16) || n × recipient entry`,
/// each entry's pairwise message carrying `0x02 || SKD plaintext`. No trailing bytes.
public struct SKDEnvelope: Sendable, Hashable {
    /// The two leading bytes: envelope format `0x03`, type `0x03`.
    public static let typeBytes: [UInt8] = [0x03, 0x03]

    /// The sending device (the owner of the distributed sender key).
    public let senderDevice: WireUUID
    /// One entry per recipient device.
    public let recipients: [RecipientEntry]

    /// Assembles an envelope, checking the recipient rules.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` or ``ProtocolError/invalidRecipients(reason:)``.
    public init(senderDevice: WireUUID, recipients: [RecipientEntry]) throws {
        try RecipientEntry.validate(recipients.map(\.recipientDevice), sender: senderDevice, at: .skdEnvelope)
        self.senderDevice = senderDevice
        self.recipients = recipients
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] {
        var writer = WireWriter()
        writer.write(Self.typeBytes)
        writer.write(senderDevice)
        RecipientEntry.write(recipients, into: &writer)
        return writer.bytes
    }

    /// Strictly decodes SKD envelope bytes.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)``, ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   and ``ProtocolError/invalidRecipients(reason:)``.
    public static func decode(_ bytes: [UInt8]) throws -> SKDEnvelope {
        try EnvelopeTypeByte.require(bytes, type: typeBytes[1], at: .skdEnvelope)
        var reader = WireReader(bytes, location: .skdEnvelope)
        _ = try reader.readBytes(2)
        let device = try reader.readUUID()
        let entries = try RecipientEntry.readList(from: &reader, sender: device, at: .skdEnvelope)
        try reader.requireEnd()
        return try SKDEnvelope(senderDevice: device, recipients: entries)
    }

    /// Wraps `distribution` for each recipient device (the channel's member devices that need
    /// it, the sender's own other devices included).
    /// - Throws: the recipient errors, ``ProtocolError/limitExceeded(_:limit:actual:)`` for an
    ///   envelope above the `content` limit, or whatever `pairwiseEncrypt` throws.
    public static func seal(
        _ distribution: SenderKeyDistribution, senderDevice: WireUUID, recipients: [WireUUID], pairwiseEncrypt: PairwiseEncrypt
    ) throws -> SKDEnvelope {
        try RecipientEntry.validate(recipients, sender: senderDevice, at: .skdEnvelope)
        let plaintext = PairwisePlaintext.senderKeyDistribution(distribution).encoded()
        let entries = try recipients.map { device in
            try RecipientEntry(recipientDevice: device, pairwiseMessage: pairwiseEncrypt(device, plaintext))
        }
        let envelope = try SKDEnvelope(senderDevice: senderDevice, recipients: entries)
        try requireEncodableContent(byteCount: envelope.encoded().count, at: .skdEnvelope)
        return envelope
    }

    /// The pairwise message addressed to `device`, for the caller to decrypt with its session
    /// with ``senderDevice``; decode the result with ``PairwisePlaintext/decode(_:)`` and apply
    /// ``SenderKeyDistribution/process(postedChannel:senderDevice:existing:now:)``.
    /// - Throws: ``ProtocolError/notARecipient``.
    public func pairwiseMessage(for device: WireUUID) throws -> [UInt8] {
        try recipients.pairwiseMessage(for: device)
    }
}
