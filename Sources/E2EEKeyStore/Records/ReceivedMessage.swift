/// A timeline row with its receive-side columns (schema `v4`), as the receive pipeline and the
/// app's timeline reader see it.
package struct ReceivedMessage: Sendable, Equatable {
    /// The row (plaintext opened when the read asked for it).
    public var message: TimelineMessage
    /// The receive-side columns.
    public var facts: ReceivedFacts

    /// Creates the value.
    public init(message: TimelineMessage, facts: ReceivedFacts) {
        self.message = message
        self.facts = facts
    }
}

/// A queued ciphertext with what its timeline row knows about it, for a re-drive.
package struct PendingReceive: Sendable, Equatable {
    /// The queued ciphertext.
    public var pending: PendingCiphertext
    /// The sender user the server named.
    public var senderUserID: String?
    /// The server's `created_at`.
    public var createdAt: StoreTime
    /// When the content was an edit, when it was edited.
    public var editedAt: StoreTime?
    /// The row's kind (`control` for a sender key distribution).
    public var kind: TimelineRowKind

    /// Creates the value.
    public init(pending: PendingCiphertext, senderUserID: String?, createdAt: StoreTime, editedAt: StoreTime?, kind: TimelineRowKind) {
        self.pending = pending
        self.senderUserID = senderUserID
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.kind = kind
    }
}
