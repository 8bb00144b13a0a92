import E2EECrypto

/// What a timeline row is for (schema `v4`): only `message` rows are the app's timeline; the
/// others belong to the dedupe set and stay out of pages.
@_spi(StoreInternals) public enum TimelineRowKind: String, Sendable, Equatable, CaseIterable {
    /// A message the app shows (in any state).
    case message
    /// A control message: a sender key distribution, a tombstone (``ReceivedFacts/deleteOf``),
    /// an announcement, or the mark of a server delete seen before its message.
    case control
    /// A second server id for a message already shown (same envelope bytes, or a used
    /// (sender user, payload id)); ``ReceivedFacts/duplicateOf`` names the first.
    case duplicate
}

/// The receive-side columns of a timeline row (schema `v4`).
@_spi(StoreInternals) public struct ReceivedFacts: Sendable, Equatable {
    /// The row's kind.
    public var kind: TimelineRowKind
    /// The payload's client message id (lower-case UUID) of a decrypted message, for the
    /// (sender user, payload id) dedupe; `nil` to leave the stored value.
    public var payloadID: String?
    /// When the sender last edited the message, `nil` when never (or to leave the stored value).
    public var editedAt: StoreTime?
    /// For a duplicate, the server id of the first copy.
    public var duplicateOf: String?
    /// For a decrypted tombstone (a `control` row): the payload id of the message of the same
    /// sender user and channel it deletes (docs/spec/protocol.md §6.7). The store erases that
    /// message, now or when it arrives, if the sending device is trusted here; otherwise the
    /// message is only marked removed from the server.
    public var deleteOf: String?
    /// For a decrypted announcement (a `control` row): what its sender decided (§5.15). From a
    /// trusted device of this account it is applied as this device's own decision, in the same
    /// transaction.
    public var announcement: PayloadAnnouncement?
    /// For an announcement: when its sender decided, the payload's signed `ts` (Unix
    /// milliseconds): a standing set by a later decision is not changed by it (§5.15).
    public var announcedAt: Int64?

    /// Creates the value.
    public init(kind: TimelineRowKind, payloadID: String? = nil, editedAt: StoreTime? = nil, duplicateOf: String? = nil,
                deleteOf: String? = nil, announcement: PayloadAnnouncement? = nil, announcedAt: Int64? = nil) {
        self.announcedAt = announcedAt
        self.kind = kind
        self.payloadID = payloadID
        self.editedAt = editedAt
        self.duplicateOf = duplicateOf
        self.deleteOf = deleteOf
        self.announcement = announcement
    }
}
