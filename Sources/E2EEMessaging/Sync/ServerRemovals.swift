import E2EEKeyStore

/// The server's deletes as hints (docs/spec/sync.md guarantee 9): only a message's sender
/// deletes it. A `message.delete` event, or a message missing from two catch-up reads a few
/// seconds apart (``DeleteInference``), marks the message "removed from the server" — its
/// plaintext is kept, the app shows it collapsed — and a read or an event that returns the
/// message clears the mark. No server answer erases a plaintext: the plaintext cache is the
/// only copy this device has (ratchets only move forward).
struct ServerRemovals: Sendable {
    let store: KeyStore
    let events: EventBroadcaster
    let now: @Sendable () -> StoreTime

    /// The server says `messageID` of `channelID` is gone: marked (and published) when it is a
    /// shown message; a message not seen yet is left alone, so it shows when it arrives.
    /// - Throws: key store errors.
    func serverRemoved(messageID: MessageID, channelID: ChannelID) async throws {
        let id = messageID
        switch try await store.markRemovedFromServer(messageID: id.rawValue, channelID: channelID.rawValue, at: now()) {
        case .marked:
            events.publish(.timeline([TimelineChange(channelID: channelID, messageID: id, kind: .removedFromServer)]))
        case .alreadyMarked, .notShown:
            return
        case .channelMismatch:
            events.publish(.inputRefused(reason: "delete refused: \(UndecryptableReason.wrongChannel.rawValue)"))
        }
    }

    /// The server returned `messages`: any of them marked removed is unmarked (and published).
    /// - Throws: key store errors.
    func serverReturned(_ messages: [ServerMessage]) async throws {
        let cleared = try await store.clearRemovedFromServer(messageIDs: messages.map(\.id.rawValue))
        guard !cleared.isEmpty else { return }
        let channels = Dictionary(messages.map { ($0.id, $0.channelID) }) { first, _ in first }
        let changes = cleared.compactMap { stored -> TimelineChange? in
            let id = MessageID(stored: stored)
            return channels[id].map { TimelineChange(channelID: $0, messageID: id, kind: .backOnServer) }
        }
        if !changes.isEmpty { events.publish(.timeline(changes)) }
    }
}
