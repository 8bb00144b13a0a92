import E2EEKeyStore

/// A group message sent after this device left its channel (or was removed)
/// waits for a sender key that is never sent to it. Such rows are shown as what they are,
/// ``UndecryptableReason/sentAfterLeaving``, and leave the pending queue, so no re-drive retries
/// them. Which rows: pending on a sender key, in a channel the account left, created after the
/// newest message it had read there and before it was listed again (docs/messaging/receiving.md).
struct DepartureSettlement: Sendable {
    let store: KeyStore
    let events: EventBroadcaster

    /// Settles the rows and publishes a timeline change for each.
    /// - Throws: store errors.
    func settle() async throws {
        let reason = UndecryptableReason.sentAfterLeaving
        for row in try await store.settleDepartedPending(reason: reason.rawValue) {
            events.publish(.timeline([TimelineChange(channelID: ChannelID(stored: row.channelID), messageID: MessageID(stored: row.messageID), kind: .undecryptable(reason: reason))]))
        }
    }
}
