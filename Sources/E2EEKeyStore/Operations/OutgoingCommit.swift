import E2EECrypto

/// Everything queueing one outgoing message changes, committed together by
/// ``KeyStore/queueOutgoingMessage(_:)``: the advanced sending state, the plaintext and exact
/// content, and the outbox row.
package struct OutgoingCommit: Sendable {
    /// The store's id for the message (a UUID string).
    public var localID: String
    /// The channel.
    public var channelID: String
    /// The exact `content` string to post (and to resend on retry).
    public var content: String
    /// The plaintext we wrote (kept so our own messages stay readable).
    public var plaintext: SecretBytes
    /// A new own sender key for the channel, stored (as its current key) before anything else of
    /// this commit: a rotation and the distribution of the new key, or the first message under
    /// it, are one transaction, so the key is never stored without its recipient set.
    public var newSenderKey: OwnSenderKey?
    /// The advanced own sender key (group messages).
    public var senderKey: OwnSenderKeyAdvance?
    /// Advanced pairwise sessions (one per recipient device, for pairwise messages and sender
    /// key distributions), each naming the current state it advanced.
    public var sessions: [SessionUpdate]
    /// When it was queued.
    public var queuedAt: StoreTime
    /// What sending it does.
    public var kind: OutboxKind
    /// The `content_type` to post.
    public var contentType: String
    /// The server message an edit or delete applies to.
    public var targetMessageID: String?
    /// For an SKD: the devices that will hold `senderKeyShareKeyID` once it is queued — the
    /// recipient set the key was created for (docs/spec/protocol.md §4.8).
    public var senderKeyShares: [SenderKeyShare]
    /// The own sender key the shares are of.
    public var senderKeyShareKeyID: UInt32?
    /// Replace the draft stored under `localID` (failed: a retry of a send that could not be
    /// encrypted before; queued: one stored while the server was unreachable): the draft goes
    /// and this entry takes its id, in one transaction.
    public var replacingDraft: Bool

    /// Creates the value.
    public init(localID: String, channelID: String, content: String, plaintext: SecretBytes, newSenderKey: OwnSenderKey? = nil,
                senderKey: OwnSenderKeyAdvance? = nil,
                sessions: [SessionUpdate] = [], queuedAt: StoreTime, kind: OutboxKind = .message, contentType: String = "",
                targetMessageID: String? = nil, senderKeyShares: [SenderKeyShare] = [], senderKeyShareKeyID: UInt32? = nil,
                replacingDraft: Bool = false) {
        self.replacingDraft = replacingDraft
        self.kind = kind
        self.contentType = contentType
        self.targetMessageID = targetMessageID
        self.senderKeyShares = senderKeyShares
        self.senderKeyShareKeyID = senderKeyShareKeyID
        self.localID = localID
        self.channelID = channelID
        self.content = content
        self.plaintext = plaintext
        self.newSenderKey = newSenderKey
        self.senderKey = senderKey
        self.sessions = sessions
        self.queuedAt = queuedAt
    }
}

/// An own sender key after encrypting one message.
package struct OwnSenderKeyAdvance: Sendable {
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
