/// A link envelope (docs/spec/protocol.md §10.22, `content_type = "e2ee.link"`, posted only in
/// link channels): `0x03 0x04 || sender_device_id(16) || recipient_device_id(16) || pairwise
/// message`, the pairwise message (§3.15) at most ``ProtocolLimits/maxLinkPairwiseMessageBytes``
/// and carrying a ``LinkPlaintext``. One recipient; nothing follows the message.
///
/// ``Envelope/decode(_:)`` does not read this type (it refuses type `0x04`): a receiver picks
/// this decoder by the message's `content_type`, so a link envelope is never taken for a DM,
/// group or SKD envelope, nor one of those for it.
public struct LinkEnvelope: Sendable, Hashable {
    /// The two leading bytes: envelope format `0x03`, type `0x04`.
    public static let typeBytes: [UInt8] = [0x03, 0x04]
    /// The message `content_type` of a link envelope.
    public static let contentType = "e2ee.link"
    /// Bytes before the pairwise message.
    static let headLength = 2 + 16 + 16

    /// The sending device.
    public let senderDevice: WireUUID
    /// The one recipient device.
    public let recipientDevice: WireUUID
    /// The pairwise message, for the recipient's session with ``senderDevice``.
    public let pairwiseMessage: [UInt8]

    /// Assembles an envelope, checking its fields as ``decode(_:)`` does.
    /// - Throws: ``ProtocolError/invalidRecipients(reason:)`` when sender and recipient are the
    ///   same device; at ``WireLocation/linkEnvelope``, ``ProtocolError/truncated(_:expected:actual:)``
    ///   for a pairwise message under ``ProtocolLimits/minPairwiseMessageBytes`` and
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` above ``ProtocolLimits/maxLinkPairwiseMessageBytes``.
    public init(senderDevice: WireUUID, recipientDevice: WireUUID, pairwiseMessage: [UInt8]) throws {
        guard senderDevice != recipientDevice else { throw ProtocolError.invalidRecipients(reason: "a link envelope addressed to its sender") }
        try Self.checkMessageLength(pairwiseMessage.count)
        self.senderDevice = senderDevice
        self.recipientDevice = recipientDevice
        self.pairwiseMessage = pairwiseMessage
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] {
        var writer = WireWriter()
        writer.write(Self.typeBytes)
        writer.write(senderDevice)
        writer.write(recipientDevice)
        writer.write(pairwiseMessage)
        return writer.bytes
    }

    /// The message's `content`: the envelope in canonical base64.
    public func content() -> String { Base64.encode(encoded()) }

    /// Strictly decodes link envelope bytes; the message length is checked before it is copied.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)`` for other format or type bytes,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   and ``ProtocolError/invalidRecipients(reason:)`` (as ``init(senderDevice:recipientDevice:pairwiseMessage:)``).
    public static func decode(_ bytes: [UInt8]) throws -> LinkEnvelope {
        try EnvelopeTypeByte.require(bytes, type: typeBytes[1], at: .linkEnvelope)
        var reader = WireReader(bytes, location: .linkEnvelope)
        _ = try reader.readBytes(2)
        let sender = try reader.readUUID()
        let recipient = try reader.readUUID()
        try checkMessageLength(reader.remainingCount)
        return try LinkEnvelope(senderDevice: sender, recipientDevice: recipient, pairwiseMessage: reader.readRemaining())
    }

    /// Encrypts `plaintext` for `recipientDevice` with the caller's session (as
    /// ``DMEnvelope/seal(payload:channel:senderDevice:recipients:using:pairwiseEncrypt:)`` does
    /// for each entry) and frames it.
    /// - Throws: the errors of ``LinkPlaintext/encoded()`` and of
    ///   ``init(senderDevice:recipientDevice:pairwiseMessage:)``, or whatever `pairwiseEncrypt` throws.
    public static func seal(_ plaintext: LinkPlaintext, senderDevice: WireUUID, recipientDevice: WireUUID,
                            pairwiseEncrypt: PairwiseEncrypt) throws -> LinkEnvelope {
        guard senderDevice != recipientDevice else { throw ProtocolError.invalidRecipients(reason: "a link envelope addressed to its sender") }
        let message = try pairwiseEncrypt(recipientDevice, plaintext.encoded())
        return try LinkEnvelope(senderDevice: senderDevice, recipientDevice: recipientDevice, pairwiseMessage: message)
    }

    /// The pairwise message when `device` is the recipient, for the caller to decrypt with its
    /// session with ``senderDevice``; then pass the plaintext to ``open(pairwisePlaintext:)``.
    /// - Throws: ``ProtocolError/notARecipient`` for any other device.
    public func pairwiseMessage(for device: WireUUID) throws -> [UInt8] {
        guard device == recipientDevice else { throw ProtocolError.notARecipient }
        return pairwiseMessage
    }

    /// Decodes the decrypted pairwise plaintext: only a link plaintext is accepted here.
    /// - Throws: ``ProtocolError/wrongEnvelopeType`` for a DM key entry or SKD plaintext (type
    ///   `0x01` or `0x02`), else the errors of ``LinkPlaintext/decode(_:)``.
    public func open(pairwisePlaintext: SecretBytes) throws -> LinkPlaintext {
        let type = pairwisePlaintext.withUnsafeBytes { $0.first }
        if type == PairwisePlaintext.dmKeyType || type == PairwisePlaintext.senderKeyDistributionType { throw ProtocolError.wrongEnvelopeType }
        return try LinkPlaintext.decode(pairwisePlaintext)
    }

    private static func checkMessageLength(_ length: Int) throws {
        guard length >= ProtocolLimits.minPairwiseMessageBytes else {
            throw ProtocolError.truncated(.linkEnvelope, expected: headLength + ProtocolLimits.minPairwiseMessageBytes, actual: headLength + length)
        }
        guard length <= ProtocolLimits.maxLinkPairwiseMessageBytes else {
            throw ProtocolError.limitExceeded(.linkEnvelope, limit: ProtocolLimits.maxLinkPairwiseMessageBytes, actual: length)
        }
    }
}
