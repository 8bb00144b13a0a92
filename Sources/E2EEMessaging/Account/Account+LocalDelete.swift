import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Deletes one of our messages by the local id its send reported (``SendReport/localID``):
    /// what an app holds for a message it has just sent, before the server gave it an id.
    ///
    /// - A message that has not gone out (`.queued`, also one waiting for the server, or
    ///   `.failed`) is removed from the outbox with its plaintext: it is never posted, so nobody
    ///   has anything to erase. Returns `nil`.
    /// - A message being posted right now gets its encrypted tombstone queued behind it, in
    ///   channel order: once the server took the message, the tombstone erases it here and on
    ///   every device and deletes the server's copy (docs/spec/protocol.md §6.7). Returns the
    ///   tombstone's report.
    /// - A message the server already took is deleted as ``delete(_:)`` does.
    /// - Throws: ``MessagingError/unknownOutboxEntry(_:)`` for a local id no message of ours
    ///   has (edits, deletes and key distributions are not messages to delete),
    ///   ``MessagingError/notOwnMessage(_:)`` for a sent message that is no longer readable
    ///   here (deleted already), as ``send(text:to:replyTo:)``.
    @discardableResult
    public func delete(localID: OutboxEntryID) async throws -> SendReport? {
        let entry = try await store.read { [store] db in try store.outboxStore.loadOutboxMessage(localID: localID.rawValue, db) }
        guard let entry, entry.kind == .message, let payload = try? MessagePayload(json: entry.plaintext), !payload.isControl else {
            throw MessagingError.unknownOutboxEntry(localID.rawValue)
        }
        if let serverID = entry.serverMessageID {
            return try await delete(MessageID(stored: serverID))
        }
        if entry.state != .sending {
            do {
                try await cancelOutboxEntry(localID)
                return nil
            } catch MessagingError.unknownOutboxEntry {
                // It started going out meanwhile: its tombstone follows it, as below.
            }
        }
        let channelID = ChannelID(stored: entry.channelID)
        let tombstone = try makePayload(text: "", editOf: nil, replyTo: nil, with: try await directMessageParticipant(channelID),
                                        deleteOf: payload.id.text)
        return try await queueReporting(payload: tombstone, channelID: channelID, kind: .message, target: nil)
    }
}
