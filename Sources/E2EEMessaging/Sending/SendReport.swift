import E2EEKeyStore

/// What ``Account/send(text:to:replyTo:)``, ``Account/edit(_:text:)``, ``Account/delete(_:)``
/// and ``Account/retry(_:)`` did: the outbox entry's ids and delivery state when the call
/// returned, and what the recipient check surfaced, held or saw removed (docs/spec/protocol.md
/// §5). Later states arrive as ``AccountEvent/delivery(_:)`` events keyed by ``localID``, and
/// on the message's ``TimelineItem/delivery`` (its local echo's until posted, then the posted
/// row's; both carry the same ``TimelineItem/localID``). It holds no plaintext.
public struct SendReport: Sendable, Equatable {
    /// The outbox id (the id of delivery events, ``Account/retry(_:)`` and ``Account/cancelOutboxEntry(_:)``).
    public var localID: OutboxEntryID
    /// The channel.
    public var channelID: ChannelID
    /// What the entry does: `.message` for a send or a delete's tombstone, `.edit`, or `.delete`
    /// for a delete that only removes the server's copy.
    public var kind: OutboxKind
    /// The delivery state when the call returned: `.queued` normally; `.failed` when nothing
    /// could be encrypted (``everyRecipientHeld``, or ``failureReason``), to retry later.
    public var state: OutboxState
    /// The server's id, when already known (a retried entry the server took earlier).
    public var serverMessageID: MessageID?
    /// The message an edit or delete applies to.
    public var targetMessageID: MessageID?
    /// Why the entry failed or waits, in public words (never content).
    public var failureReason: String?
    /// Recipients surfaced, held and removed by this send, and how many devices it was encrypted to.
    public var recipients: RecipientChanges

    init(_ entry: OutboxMessage, recipients: RecipientChanges) {
        localID = OutboxEntryID(stored: entry.localID)
        channelID = ChannelID(stored: entry.channelID)
        kind = entry.kind
        state = entry.state
        serverMessageID = entry.serverMessageID.map { MessageID(stored: $0) }
        targetMessageID = entry.targetMessageID.map { MessageID(stored: $0) }
        failureReason = entry.lastError
        self.recipients = recipients
    }

    /// Whether nothing was sent because every recipient device is held (approve one with
    /// ``Account/approveDevice(_:)``, then ``Account/retry(_:)``).
    public var everyRecipientHeld: Bool { state == .failed && recipients.recipientCount == 0 && !recipients.held.isEmpty }
}

extension RecipientChanges {
    /// What a send that failed with `error` can still report: what the recipient check found
    /// before every device turned out held, or the DM's other user whose user key is
    /// unresolved (docs/spec/protocol.md §10.5, §10.7, §10.17) in ``unresolvedUsers``.
    init(_ error: any Error) {
        self.init()
        guard let error = error as? MessagingError else { return }
        if case .allRecipientsHeld(_, let changes) = error {
            self = changes
        } else if let unresolved = UnresolvedUser(error) {
            unresolvedUsers = [unresolved]
        }
    }
}
