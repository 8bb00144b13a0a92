import E2EECrypto
import E2EEKeyStore
import Foundation

extension OutgoingComposer {
    /// Queues an SKD of `state` (its current chain state, never an earlier one) to `devices`
    /// and records them as holders, in one transaction. The caller holds the sender-key lock of
    /// the channel and the session locks of `devices`. Nothing happens for no devices.
    /// - Throws: ``MessagingError``, protocol and key store errors.
    func queueDistribution(of state: SenderKeySendingState, in channel: ChatChannel, to devices: [RemoteDevice]) async throws {
        guard !devices.isEmpty else { return }
        let senderDevice = try WireUUID(text: device.deviceID)
        var encryptor = PairwiseEncryptor(try await sessions.prepare(devices))
        let skd = try SKDEnvelope.seal(state.distribution, senderDevice: senderDevice,
                                       recipients: devices.map { try WireUUID(text: $0.deviceID) }) { device, plaintext in
            try encryptor.encrypt(device, plaintext)
        }
        _ = try await store.queueOutgoingMessage(OutgoingCommit(
            localID: UUID().uuidString.lowercased(), channelID: channel.id, content: Base64.encode(skd.encoded()),
            plaintext: SecretBytes(copying: []), sessions: encryptor.updates, queuedAt: now(), kind: .skd,
            contentType: EnvelopeKind.senderKeyDistribution.contentType,
            senderKeyShares: devices.map { SenderKeyShare(userID: $0.userID, deviceID: $0.deviceID) }, senderKeyShareKeyID: state.keyID))
    }

    /// Sends a newly approved device our current sender key state in `channel` (docs/spec/protocol.md §5:
    /// approval sends the current state, never earlier keys). Returns whether an SKD was
    /// queued: not when the channel has no sender key yet (the next message distributes it) or
    /// the device already holds it.
    /// - Throws: ``MessagingError``, protocol and key store errors.
    func distributeCurrentKey(in channel: ChatChannel, to recipient: RemoteDevice) async throws -> Bool {
        try await locks.withLocks([LockKeys.senderKey(channel.id), LockKeys.session(recipient.deviceID)]) { [self] in
            let stored = try await store.read { [store] db -> (OwnSenderKey?, Set<SenderKeyShare>) in
                guard let key = try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: channel.id, db) else { return (nil, []) }
                return (key, try store.channelStore.loadShares(channelID: channel.id, keyID: key.keyID, db))
            }
            guard let key = stored.0, !stored.1.contains(where: { $0.deviceID == recipient.deviceID }) else { return false }
            let state = try SenderKeySendingState(serialized: key.state)
            try await queueDistribution(of: state, in: channel, to: [recipient])
            return true
        }
    }
}
