import E2EECrypto

/// Everything queueing one outgoing message changes, committed together by
/// ``KeyStore/queueOutgoingMessage(_:)``: the advanced sending state, the plaintext and exact
/// content, and the outbox row.
public struct OutgoingCommit: Sendable {
    /// The store's id for the message (a UUID string).
    public var localID: String
    /// The channel.
    public var channelID: String
    /// The exact `content` string to post (and to resend on retry).
    public var content: String
    /// The plaintext we wrote (kept so our own messages stay readable).
    public var plaintext: SecretBytes
    /// The advanced own sender key (group messages).
    public var senderKey: OwnSenderKeyAdvance?
    /// Advanced pairwise sessions (one per recipient device, for pairwise messages and sender
    /// key distributions).
    public var sessions: [SessionStateUpdate]
    /// When it was queued.
    public var queuedAt: StoreTime

    /// Creates the value.
    public init(localID: String, channelID: String, content: String, plaintext: SecretBytes, senderKey: OwnSenderKeyAdvance? = nil,
                sessions: [SessionStateUpdate] = [], queuedAt: StoreTime) {
        self.localID = localID
        self.channelID = channelID
        self.content = content
        self.plaintext = plaintext
        self.senderKey = senderKey
        self.sessions = sessions
        self.queuedAt = queuedAt
    }
}

/// An own sender key after encrypting one message.
public struct OwnSenderKeyAdvance: Sendable {
    /// The key id (the channel's current key).
    public var keyID: UInt32
    /// The new state.
    public var state: SecretBytes

    /// Creates the value.
    public init(keyID: UInt32, state: SecretBytes) {
        self.keyID = keyID
        self.state = state
    }
}

/// A pairwise session's state after encrypting.
public struct SessionStateUpdate: Sendable {
    /// The session id.
    public var sessionID: String
    /// The new state.
    public var state: SecretBytes

    /// Creates the value.
    public init(sessionID: String, state: SecretBytes) {
        self.sessionID = sessionID
        self.state = state
    }
}
