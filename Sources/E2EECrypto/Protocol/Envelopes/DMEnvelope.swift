/// A direct message's envelope (docs/spec/protocol.md §5, `content_type = "e2ee.dm"`):
/// `0x03 0x01 || sender_device_id(16) || payload_nonce(12) || key_commit(32) || n(u16) ||
/// n × recipient entry || payload_ct`.
///
/// Each recipient entry carries a pairwise message of `0x01 || K || SHA-256(payload_nonce || payload_ct)`;
/// `key_commit = SHA-256("e2ee-dm-key-v1" || K)`; `payload_ct` is AES-256-GCM under `K` with
/// associated data `"e2ee-dm-v1" || channel_id || sender_device_id`. Each recipient can verify
/// only its own entry: the server could strip others' (a documented limitation).
public struct DMEnvelope: Sendable, Hashable {
    /// The two leading bytes: envelope format `0x03`, type `0x01`.
    public static let typeBytes: [UInt8] = [0x03, 0x01]
    static let keyCommitLabel = Array("e2ee-dm-key-v1".utf8)
    static let aadLabel = Array("e2ee-dm-v1".utf8)

    /// The sending device.
    public let senderDevice: WireUUID
    /// The 12-byte AES-256-GCM nonce of the payload.
    public let payloadNonce: [UInt8]
    /// `SHA-256("e2ee-dm-key-v1" || K)`.
    public let keyCommit: [UInt8]
    /// One entry per recipient device.
    public let recipients: [RecipientEntry]
    /// `ciphertext || tag` of the payload.
    public let payloadCiphertext: [UInt8]

    /// Assembles an envelope, checking every field and the recipient rules.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for a wrong nonce or commitment length,
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` or ``ProtocolError/truncated(_:expected:actual:)``
    ///   for a ciphertext outside ``ProtocolLimits/payloadCiphertextRange``, and the recipient
    ///   errors (count, duplicates, the sending device).
    public init(senderDevice: WireUUID, payloadNonce: [UInt8], keyCommit: [UInt8], recipients: [RecipientEntry], payloadCiphertext: [UInt8]) throws {
        guard payloadNonce.count == AES256GCM.nonceLength else { throw ProtocolError.malformed(.dmEnvelope, reason: "nonce of \(payloadNonce.count) bytes") }
        guard keyCommit.count == SHA256.digestLength else { throw ProtocolError.malformed(.dmEnvelope, reason: "key commitment of \(keyCommit.count) bytes") }
        try Self.checkCiphertextLength(payloadCiphertext.count)
        try RecipientEntry.validate(recipients.map(\.recipientDevice), sender: senderDevice, at: .dmEnvelope)
        self.senderDevice = senderDevice
        self.payloadNonce = payloadNonce
        self.keyCommit = keyCommit
        self.recipients = recipients
        self.payloadCiphertext = payloadCiphertext
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] {
        var writer = WireWriter()
        writer.write(Self.typeBytes)
        writer.write(senderDevice)
        writer.write(payloadNonce)
        writer.write(keyCommit)
        RecipientEntry.write(recipients, into: &writer)
        writer.write(payloadCiphertext)
        return writer.bytes
    }

    /// Strictly decodes DM envelope bytes; counts and lengths are checked before allocation.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)`` for other type bytes,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   (recipient count, ciphertext length) and ``ProtocolError/invalidRecipients(reason:)``.
    public static func decode(_ bytes: [UInt8]) throws -> DMEnvelope {
        try EnvelopeTypeByte.require(bytes, type: typeBytes[1], at: .dmEnvelope)
        var reader = WireReader(bytes, location: .dmEnvelope)
        _ = try reader.readBytes(2)
        let device = try reader.readUUID()
        let nonce = try reader.readBytes(AES256GCM.nonceLength)
        let commit = try reader.readBytes(SHA256.digestLength)
        let entries = try RecipientEntry.readList(from: &reader, sender: device, at: .dmEnvelope)
        try checkCiphertextLength(reader.remainingCount)
        let ciphertext = reader.readRemaining()
        return try DMEnvelope(senderDevice: device, payloadNonce: nonce, keyCommit: commit, recipients: entries, payloadCiphertext: ciphertext)
    }

    /// The pairwise message addressed to `device`, for the caller to decrypt with its session
    /// with ``senderDevice``; then pass the plaintext to ``open(pairwisePlaintext:channel:)``.
    /// - Throws: ``ProtocolError/notARecipient``.
    public func pairwiseMessage(for device: WireUUID) throws -> [UInt8] {
        try recipients.pairwiseMessage(for: device)
    }

    /// `SHA-256(payload_nonce || payload_ct)`, what each entry binds its key to.
    var payloadHash: [UInt8] { SHA256.hash(payloadNonce + payloadCiphertext) }

    static func associatedData(channel: WireUUID, senderDevice: WireUUID) -> [UInt8] {
        aadLabel + channel.bytes + senderDevice.bytes
    }

    static func checkCiphertextLength(_ length: Int) throws {
        let range = ProtocolLimits.payloadCiphertextRange
        guard length >= range.lowerBound else { throw ProtocolError.truncated(.dmEnvelope, expected: range.lowerBound, actual: length) }
        guard length <= range.upperBound else { throw ProtocolError.limitExceeded(.dmEnvelope, limit: range.upperBound, actual: length) }
    }
}
