import E2EECrypto

/// A receiver's side of the envelope vectors, through the public API only. The generator uses
/// it to prove each negative case is refused; the conformance replay uses it on the files.
public enum EnvelopeReceiver {
    /// `now` for sender-key installs.
    static let now: Int64 = 1_764_000_000

    /// `content` as a message of `contentType` in a channel whose encryption type fits it.
    /// - Throws: the `ProtocolError` of ``ReceivedContent``.
    public static func parse(content: String, contentType: String) throws -> Envelope {
        let encryption = EnvelopeKind(rawValue: contentType)?.channelEncryption ?? .x3dh
        return try ReceivedContent(content: content, contentType: contentType, protocolVersion: 2, channelEncryption: encryption).envelope
    }

    /// Opens a DM for every recipient with its decrypted entry plaintext; returns the payload.
    /// - Throws: ``ProtocolError/senderMismatch``, ``ProtocolError/keyCommitMismatch``,
    ///   ``ProtocolError/badTag``, the parsing errors.
    public static func openDM(channelID: String, senderDeviceID: String, content: String, entries: [(deviceID: String, plaintext: [UInt8])]) throws -> [UInt8] {
        guard case .dm(let envelope) = try parse(content: content, contentType: EnvelopeKind.dm.contentType) else { throw ProtocolError.wrongEnvelopeType }
        let sender = try WireUUID(text: senderDeviceID), channel = try WireUUID(text: channelID)
        try SenderDeviceRule.check(envelopeDevice: envelope.senderDevice, messageDevice: sender, senderUserDevices: [sender])
        var payloads: [[UInt8]] = []
        for entry in entries {
            _ = try envelope.pairwiseMessage(for: WireUUID(text: entry.deviceID))
            payloads.append(try envelope.open(pairwisePlaintext: SecretBytes(copying: entry.plaintext), channel: channel).unprotectedCopy())
        }
        guard let first = payloads.first, payloads.allSatisfy({ $0 == first }) else { throw ProtocolError.notARecipient }
        return first
    }

    /// Installs the sender key the test names (as an SKD would) and decrypts the group message.
    /// - Throws: ``ProtocolError/senderMismatch``, ``ProtocolError/badSignature``,
    ///   ``ProtocolError/badTag``, the parsing errors.
    public static func openGroup(channelID: String, senderDeviceID: String, content: String, keyID: UInt32, iteration: UInt32,
                                 chainKey: [UInt8], signingPublic: [UInt8]) throws -> [UInt8] {
        let channel = try WireUUID(text: channelID), sender = try WireUUID(text: senderDeviceID)
        let skd = [PairwisePlaintext.senderKeyDistributionType] + channel.bytes + WireWriter.bytes(keyID) + WireWriter.bytes(iteration) + chainKey + signingPublic
        guard case .senderKeyDistribution(let distribution) = try PairwisePlaintext.decode(SecretBytes(copying: skd)),
              case .install(let state) = try distribution.process(postedChannel: channel, senderDevice: sender, existing: nil, now: now)
        else { throw ProtocolError.unknownSenderKey }
        guard case .group(let envelope) = try parse(content: content, contentType: EnvelopeKind.group.contentType) else { throw ProtocolError.wrongEnvelopeType }
        try SenderDeviceRule.check(envelopeDevice: envelope.senderDevice, messageDevice: sender, senderUserDevices: [sender])
        return try state.decrypt(envelope, channel: channel, now: now).plaintext.unprotectedCopy()
    }

    /// Parses an SKD envelope, finds every recipient's entry, and processes the decrypted SKD
    /// plaintext in the posted channel; returns the installed distribution.
    /// - Throws: ``ProtocolError/channelMismatch``, ``ProtocolError/invalidKey(_:)``,
    ///   ``ProtocolError/senderMismatch``, the parsing errors.
    public static func openSKD(channelID: String, senderDeviceID: String, content: String, recipients: [String], skdPlaintext: [UInt8]) throws -> SenderKeyDistribution {
        let channel = try WireUUID(text: channelID), sender = try WireUUID(text: senderDeviceID)
        guard case .senderKeyDistribution(let envelope) = try parse(content: content, contentType: EnvelopeKind.senderKeyDistribution.contentType) else {
            throw ProtocolError.wrongEnvelopeType
        }
        try SenderDeviceRule.check(envelopeDevice: envelope.senderDevice, messageDevice: sender, senderUserDevices: [sender])
        for device in recipients { _ = try envelope.pairwiseMessage(for: WireUUID(text: device)) }
        guard case .senderKeyDistribution(let distribution) = try PairwisePlaintext.decode(SecretBytes(copying: skdPlaintext)) else {
            throw ProtocolError.wrongEnvelopeType
        }
        guard case .install = try distribution.process(postedChannel: channel, senderDevice: sender, existing: nil, now: now) else {
            throw ProtocolError.senderKeyConflict
        }
        return distribution
    }
}
