import E2EECrypto
import E2EEKeyStore
import Foundation

extension OutgoingComposer {
    /// Encrypts `plaintext` for our own `device` over their pairwise ratchet and queues it as a
    /// link envelope (docs/spec/protocol.md §10.22) in the link channel `channelID`, the
    /// advanced session committed with the queued entry in one transaction, as every send does
    /// (§3.11). Posted as a control message: never a local echo, never in a timeline.
    /// - Throws: ``MessagingError/encryptionFailed(_:)`` for a device of another user or this
    ///   device itself, protocol errors from X3DH and the plaintext's encoding, key store errors.
    func queueLinkMessage(_ plaintext: LinkPlaintext, to device: RemoteDevice, in channelID: ChannelID) async throws -> OutboxMessage {
        guard device.userID == self.device.userID, device.deviceID != self.device.deviceID else {
            throw MessagingError.encryptionFailed("a link message goes only to another device of our own user")
        }
        let senderDevice = try WireUUID(text: self.device.deviceID.rawValue)
        let recipient = try WireUUID(text: device.deviceID.rawValue)
        return try await locks.withLocks([LockKeys.session(device.deviceID)]) { [self] in
            var encryptor = PairwiseEncryptor(try await sessions.prepare([device]), random: random)
            let envelope = try LinkEnvelope.seal(plaintext, senderDevice: senderDevice, recipientDevice: recipient) { device, plaintext in
                try encryptor.encrypt(device, plaintext)
            }
            return try await store.queueOutgoingMessage(OutgoingCommit(
                localID: UUID().uuidString.lowercased(), channelID: channelID.rawValue, content: envelope.content(),
                plaintext: SecretBytes(copying: []), sessions: encryptor.updates, queuedAt: now(), kind: .skd,
                contentType: LinkEnvelope.contentType))
        }
    }
}
