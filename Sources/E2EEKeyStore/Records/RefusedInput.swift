/// An edit or delete from the server that was refused (docs/spec/protocol.md §5 "For an edit"); the
/// message stays as it was. Public facts only.
@_spi(StoreInternals) public struct RefusedInput: Sendable, Equatable {
    /// What was refused.
    public enum Kind: String, Sendable, Equatable {
        /// A `message.edit` event or a REST row whose content changed.
        case edit
        /// A `message.delete` event.
        case delete
    }

    /// The channel the input named.
    public var channelID: String
    /// The message it named.
    public var messageID: String
    /// What was refused.
    public var kind: Kind
    /// Why (public text, never content).
    public var reason: String
    /// SHA-256 of the refused `content` string, for an edit.
    public var contentHash: [UInt8]?
    /// When it was seen.
    public var seenAt: StoreTime

    /// Creates the value.
    public init(channelID: String, messageID: String, kind: Kind, reason: String, contentHash: [UInt8]?, seenAt: StoreTime) {
        self.channelID = channelID
        self.messageID = messageID
        self.kind = kind
        self.reason = reason
        self.contentHash = contentHash
        self.seenAt = seenAt
    }
}
