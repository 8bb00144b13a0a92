import E2EECrypto
import E2EEKeyStore

/// Local echoes (``TimelineItem/isLocalEcho``): our own messages not posted yet, read from the
/// outbox with their sealed plaintexts — the messages the app sent (``OutboxPurpose/message``),
/// never a tombstone, an announcement, an edit or a key distribution.
extension TimelineReader {
    /// The channel's local echoes, in sending order.
    /// - Throws: `KeyStoreError` for a tampered row, GRDB's `DatabaseError`.
    func localEchoes(channelID: ChannelID) async throws -> [TimelineItem] {
        try await store.unpostedMessages(channelID: channelID.rawValue).compactMap(Self.echo)
    }

    /// The local echo of the outbox entry `localID`, if it is one.
    /// - Throws: as ``localEchoes(channelID:)``.
    func localEcho(localID: String) async throws -> TimelineItem? {
        try await store.unpostedMessage(localID: localID).flatMap(Self.echo)
    }

    /// The row an unposted message shows: its text and reply from the payload we wrote, its
    /// outbox state as ``TimelineItem/delivery``, its outbox id for ``TimelineItem/messageID``
    /// and ``TimelineItem/localID``, the time it was queued for ``TimelineItem/createdAt``.
    static func echo(_ entry: OutboxMessage) -> TimelineItem? {
        guard entry.isUnpostedMessage, entry.purpose == .message, let payload = try? MessagePayload(json: entry.plaintext) else { return nil }
        let localID = OutboxEntryID(stored: entry.localID)
        return TimelineItem(messageID: MessageID(stored: entry.localID), channelID: ChannelID(stored: entry.channelID), senderUserID: nil, senderDeviceID: nil,
                            createdAt: ServerTimestamp(microseconds: entry.createdAt.microseconds), state: .decrypted, text: payload.text,
                            replyTo: payload.replyTo.map { MessageID($0.text) }, editedAt: nil, isOwn: true, delivery: entry.state,
                            localID: localID, isLocalEcho: true)
    }
}
