import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension MessageProcessor {
    /// A link envelope (docs/spec/protocol.md §10.10, §10.22): only in one of our own link
    /// channels, only from a device of our own user, only addressed to this device; the pairwise
    /// step (on the listed blob when the device is not pinned here, §2.9), then the link
    /// plaintext. A control row, never shown; the opened message is handed to the account's
    /// linking once the step commits, so a duplicate (§6.6) never reaches it twice.
    func processLink(_ message: IncomingMessage, standing: LinkChannelStanding, lane: LaneState) async throws -> ProcessingStep {
        guard !message.isEdit, message.editedAt == nil else { throw ReceiveRefusal(.wrongEnvelopeType) }
        guard case .ours(let channel) = standing else { throw ReceiveRefusal(.wrongEnvelopeType) }
        guard message.senderUserID == device.userID else { throw ReceiveRefusal(.senderMismatch) }
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(message.content, maxEncodedLength: ProtocolLimits.maxContentBase64Length)
        } catch {
            throw ReceiveRefusal(.malformed)
        }
        let envelope = try LinkEnvelope.decode(bytes)
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        guard let deviceUUID else { throw ProtocolError.notARecipient }
        let entry = try envelope.pairwiseEntry(for: deviceUUID)
        switch try await decryptPairwise(entry, userID: sender.userID, deviceID: sender.deviceID, lane: lane) {
        case .waiting(let key):
            return pendingStep(message, waitingFor: key, rowKind: .control)
        case .decrypted(let pending):
            let plaintext = try envelope.open(pairwisePlaintext: pending.plaintext)
            lane.didDecrypt(userID: sender.userID, deviceID: sender.deviceID, effects: pending.effects)
            let unlocks = pending.effects.acceptedBaseKey == nil ? [] : [WaitingKey.session(userID: sender.userID, deviceID: sender.deviceID)]
            var step = decryptedStep(message, plaintext: nil, payload: nil, editedAt: nil, sender: sender, effects: pending.effects,
                                     senderKey: nil, unlocks: unlocks, result: .linkMessage)
            // A transfer's manifest or chunk is kept, sealed in its row, in the commit of its
            // ratchet step: the transfer takes it from there after a restart, and wipes it once
            // it committed it (§11.4) — a resend of the same envelope is a duplicate here.
            if channel == .transfer, plaintext.kind == .manifest || plaintext.kind == .chunk,
               case .decrypted(var commit)? = step.write?.action {
                commit.message.plaintext = try plaintext.encoded()
                step.write?.action = .decrypted(commit)
            }
            step.linkMessage = OpenedLinkMessage(messageID: MessageID(stored: message.id), channelID: message.channelID, channel: channel,
                                                 senderDeviceID: sender.deviceID, createdAt: message.createdAt, plaintext: plaintext)
            return step
        }
    }
}
