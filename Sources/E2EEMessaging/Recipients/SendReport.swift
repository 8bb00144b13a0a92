import E2EEKeyStore

/// What ``Account/sendReporting(text:to:replyTo:)`` did: the outbox entry and what the
/// recipient check surfaced (docs/spec/protocol.md §5).
public struct SendReport: Sendable, Equatable {
    /// The queued entry (`.failed`, nothing sent, when it could not be encrypted — for
    /// instance because every recipient device is held).
    public var entry: OutboxMessage
    /// Recipients surfaced, held and removed by this send.
    public var recipients: RecipientChanges

    /// Creates the value.
    public init(entry: OutboxMessage, recipients: RecipientChanges) {
        self.entry = entry
        self.recipients = recipients
    }

    /// Whether nothing was sent because every recipient device is held.
    public var everyRecipientHeld: Bool { entry.state == .failed && recipients.recipientCount == 0 && !recipients.held.isEmpty }
}

extension RecipientChanges {
    /// What a send that failed with `error` can still report (what the recipient check found
    /// before every device turned out held).
    init(_ error: any Error) {
        if case MessagingError.allRecipientsHeld(_, let changes)? = error as? MessagingError {
            self = changes
        } else {
            self.init()
        }
    }
}
