import E2EECrypto

/// Delivery state of an outgoing message.
public enum OutboxState: String, Sendable, Equatable, CaseIterable {
    /// Encrypted and stored; not yet posted.
    case queued
    /// A POST is under way.
    case sending
    /// The server answered 201; its message id is recorded.
    case sent
    /// Our own echo (socket or REST page) showed the server id.
    case delivered
    /// Refused, or gave up after the server answered the retries with errors; a manual retry
    /// moves it back to `.queued`. (An unreachable server leaves a message `.queued`.)
    case failed
}

/// An outgoing message: the exact `content` to (re)send and the plaintext we wrote.
package struct OutboxMessage: Sendable, Equatable {
    /// The store's id (a UUID string chosen when queued).
    public var localID: String
    /// The channel.
    public var channelID: String
    /// Per-channel order of sending (1, 2, …).
    public var sequence: Int64
    /// The exact `content` string; a retry resends these bytes, never a re-encryption.
    public var content: String
    /// SHA-256 of `content`, for reconciling an unknown POST outcome.
    public var contentHash: [UInt8]
    /// The plaintext (sealed at rest).
    public var plaintext: SecretBytes
    /// The delivery state.
    public var state: OutboxState
    /// POST attempts made.
    public var attempts: Int
    /// The last failure (public text).
    public var lastError: String?
    /// The server's id once sent.
    public var serverMessageID: String?
    /// When it was queued.
    public var createdAt: StoreTime
    /// When it last changed.
    public var updatedAt: StoreTime
    /// What sending it does.
    public var kind: OutboxKind = .message
    /// The `content_type` to post (`e2ee.dm`, `e2ee.group`, `e2ee.skd`; empty for deletes).
    public var contentType: String = ""
    /// The server message an edit or delete applies to.
    public var targetMessageID: String?
    /// Attempts the server answered with an error (giving up counts these, not `attempts`).
    public var answeredFailures: Int = 0

    /// A message still waiting to be encrypted: queued while the server could not be reached
    /// for its recipients (or refused as unencryptable, when `.failed`). It has no content yet.
    public var isDraft: Bool { content.isEmpty && kind != .delete }
}
