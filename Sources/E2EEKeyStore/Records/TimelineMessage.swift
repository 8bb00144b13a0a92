import E2EECrypto

/// Where a timeline message is.
@_spi(StoreInternals) public enum TimelineState: Sendable, Equatable {
    /// Waiting for a key (a sender key distribution or a session); its ciphertext is queued.
    case pendingKey
    /// Decrypted; the plaintext is cached (sealed).
    case decrypted
    /// Cannot be decrypted, for the given reason (public text, never secret).
    case undecryptable(reason: String)
    /// A plaintext message from another client (protocol version 1), flagged as such.
    case unencrypted
    /// Deleted on the server; the plaintext is wiped.
    case deleted

    /// The state's column value.
    var columnValue: String {
        switch self {
        case .pendingKey: "pending_key"
        case .decrypted: "decrypted"
        case .undecryptable: "undecryptable"
        case .unencrypted: "unencrypted"
        case .deleted: "deleted"
        }
    }

    /// The reason column value.
    var reason: String? {
        if case .undecryptable(let reason) = self { return reason }
        return nil
    }

    /// Rebuilds a state from its columns.
    static func from(column: String, reason: String?) -> TimelineState? {
        switch (column, reason) {
        case ("pending_key", nil): .pendingKey
        case ("decrypted", nil): .decrypted
        case ("undecryptable", .some(let reason)): .undecryptable(reason: reason)
        case ("unencrypted", nil): .unencrypted
        case ("deleted", nil): .deleted
        default: nil
        }
    }
}

/// A position in a channel's timeline: messages sort by `(createdAt, messageID)`.
@_spi(StoreInternals) public struct TimelineCursor: Sendable, Hashable {
    /// The server's `created_at`.
    public var createdAt: StoreTime
    /// The server message id.
    public var messageID: String

    /// Creates a cursor.
    public init(createdAt: StoreTime, messageID: String) {
        self.createdAt = createdAt
        self.messageID = messageID
    }
}

/// One message of a channel's timeline (the persisted dedupe set: one row per server id).
@_spi(StoreInternals) public struct TimelineMessage: Sendable, Equatable {
    /// The server message id.
    public var messageID: String
    /// The channel.
    public var channelID: String
    /// The sender user (as the server says; `nil` for a deleted user).
    public var senderUserID: String?
    /// The sender device (as authenticated, once decrypted).
    public var senderDeviceID: String?
    /// The server's `created_at`.
    public var createdAt: StoreTime
    /// SHA-256 of the exact `content` string (32 bytes).
    public var contentHash: [UInt8]
    /// The state.
    public var state: TimelineState
    /// The plaintext (sealed at rest), for `.decrypted` and `.unencrypted`.
    public var plaintext: SecretBytes?
    /// `true` for a message this device sent.
    public var isOwn: Bool

    /// Creates the value.
    public init(messageID: String, channelID: String, senderUserID: String?, senderDeviceID: String?, createdAt: StoreTime, contentHash: [UInt8], state: TimelineState, plaintext: SecretBytes?, isOwn: Bool = false) {
        self.messageID = messageID
        self.channelID = channelID
        self.senderUserID = senderUserID
        self.senderDeviceID = senderDeviceID
        self.createdAt = createdAt
        self.contentHash = contentHash
        self.state = state
        self.plaintext = plaintext
        self.isOwn = isOwn
    }

    /// Where the message sorts.
    public var cursor: TimelineCursor { TimelineCursor(createdAt: createdAt, messageID: messageID) }
}
