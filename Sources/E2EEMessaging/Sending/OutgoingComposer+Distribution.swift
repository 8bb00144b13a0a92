import E2EECrypto
import E2EEKeyStore
import Foundation

extension OutgoingComposer {
    /// Queues an SKD of `state` — the new key `key`, at its first iteration — to `devices`, and
    /// stores the key with `devices` as the recipient set it was created for, in one
    /// transaction. The caller holds the sender-key lock of the channel and the session locks of
    /// `devices`, and passes at least one device.
    /// - Throws: ``MessagingError``, protocol and key store errors.
    func queueDistribution(of state: SenderKeySendingState, storing key: OwnSenderKey, in channel: ChatChannel,
                           to devices: [RemoteDevice]) async throws {
        let senderDevice = try WireUUID(text: device.deviceID.rawValue)
        var encryptor = PairwiseEncryptor(try await sessions.prepare(devices), random: random)
        let skd = try SKDEnvelope.seal(state.distribution, senderDevice: senderDevice,
                                       recipients: devices.map { try WireUUID(text: $0.deviceID.rawValue) }) { device, plaintext in
            try encryptor.encrypt(device, plaintext)
        }
        _ = try await store.queueOutgoingMessage(OutgoingCommit(
            localID: UUID().uuidString.lowercased(), channelID: channel.id.rawValue, content: Base64.encode(skd.encoded()),
            plaintext: SecretBytes(copying: []), newSenderKey: key, sessions: encryptor.updates, queuedAt: now(), kind: .skd,
            contentType: EnvelopeKind.senderKeyDistribution.contentType,
            senderKeyShares: devices.map { SenderKeyShare(userID: $0.userID.rawValue, deviceID: $0.deviceID.rawValue) }, senderKeyShareKeyID: state.keyID))
    }
}
