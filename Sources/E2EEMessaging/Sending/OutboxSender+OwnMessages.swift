import E2EECrypto
import E2EEKeyStore

/// Our own messages seen on the server (socket echo or REST page): recorded delivered,
/// recognised after a POST that got no answer, or deleted as a second copy.
extension OutboxSender {
    /// A message with our `sender_device_id` was seen (socket echo or REST page). Returns
    /// `true` when the outbox recognises it (by server id or, after an unknown POST outcome, by
    /// content hash) and has recorded it as delivered; `false` means this device never sent it.
    func ownMessageSeen(_ message: ServerMessage) async throws -> Bool {
        // Another user's message claiming our device id is never ours (T19): nothing to
        // record, and no "duplicate" of ours to delete.
        guard message.isFrom(userID: device.userID, deviceID: device.deviceID) else { return false }
        if let entry = try await loadEntry(serverID: message.id.rawValue) {
            if entry.state == .sent, try await store.markDelivered(serverMessageID: message.id.rawValue, at: now()) {
                await publishDelivered(entry, serverID: message.id.rawValue)
            }
            return true
        }
        let hash = SHA256.hash(utf8: message.content)
        let sameBytes = try await store.outbox(channelID: message.channelID.rawValue, contentHash: hash).filter {
            $0.kind == .message || $0.kind == .skd
        }
        if let recorded = sameBytes.first(where: { $0.serverMessageID == message.id.rawValue }) {
            // The POST's answer recorded this id after the lookup above: this is its echo.
            if recorded.state == .sent, try await store.markDelivered(serverMessageID: message.id.rawValue, at: now()) {
                await publishDelivered(recorded, serverID: message.id.rawValue)
            }
            return true
        }
        if let unanswered = sameBytes.first(where: { $0.serverMessageID == nil }) {
            // Our POST got no answer, but the server stored it.
            try await recordSent(unanswered, serverID: message.id.rawValue, createdAt: message.createdAt)
            if try await store.markDelivered(serverMessageID: message.id.rawValue, at: now()) {
                await publishDelivered(unanswered, serverID: message.id.rawValue)
            }
            return true
        }
        if !sameBytes.isEmpty {
            // The same bytes under a second id: the server stored a retried POST twice.
            try await deleteDuplicate(serverID: message.id.rawValue, of: hash)
            return true
        }
        return false
    }
}
