import E2EECrypto
import E2EEKeyStore

/// Finds, among messages the server holds, the signs that this store was rolled back
/// (docs/spec/protocol.md §3, "Detecting a rollback"): every send is recorded in the store before it is
/// posted, so a message under our own `sender_id` and this device's `sender_device_id` that the
/// store holds neither as sent nor as received was sent by a later copy of the store; so was an
/// own group envelope at or beyond the channel's current sending `(key_id, iteration)`.
struct RollbackDetector: Sendable {
    let store: KeyStore
    let device: LocalDevice

    /// The first message of `messages` (all of `channelID`) that shows a rollback, if any.
    /// - Throws: key store errors.
    func evidence(in messages: [ServerMessage], channelID: ChannelID) async throws -> ServerMessage? {
        let own = messages.filter { $0.isFrom(userID: device.userID, deviceID: device.deviceID) }
        guard !own.isEmpty else { return nil }
        let sending = try await currentSendingPosition(channelID: channelID)
        for message in own {
            let hash = SHA256.hash(utf8: message.content)
            if try await !store.holdsMessage(id: message.id.rawValue, channelID: channelID.rawValue, contentHash: hash) { return message }
            if let sending, let group = ownGroupEnvelope(message), group.keyID == sending.keyID, group.iteration >= sending.iteration {
                return message
            }
        }
        return nil
    }

    /// The group envelope of `message` when it is one and names this device inside.
    private func ownGroupEnvelope(_ message: ServerMessage) -> GroupEnvelope? {
        guard message.contentType == EnvelopeKind.group.contentType,
              let bytes = try? Base64.decode(message.content, maxEncodedLength: ProtocolLimits.maxContentBase64Length),
              case .group(let envelope)? = try? Envelope.decode(bytes),
              envelope.senderDevice.text == device.deviceID.rawValue else { return nil }
        return envelope
    }

    /// The `(key_id, next iteration)` of our current sender key in the channel.
    private func currentSendingPosition(channelID: ChannelID) async throws -> (keyID: UInt32, iteration: UInt32)? {
        let stored = try await store.read { [store] db in try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: channelID.rawValue, db) }
        guard let stored, let state = try? SenderKeySendingState(serialized: stored.state) else { return nil }
        return (state.keyID, state.iteration)
    }
}
