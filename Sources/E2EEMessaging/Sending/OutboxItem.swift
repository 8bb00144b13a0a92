import E2EEKeyStore

/// One outbox entry as the app sees it: its ids, what it does and its delivery state. Never its
/// plaintext or its encrypted bytes — those stay sealed in the store.
public struct OutboxItem: Sendable, Equatable {
    /// The outbox id chosen when it was queued (the id of delivery events and ``Account/retry(_:)``).
    public var localID: OutboxEntryID
    /// The channel.
    public var channelID: ChannelID
    /// What sending it does: a message, an edit, the server's delete, or a sender key distribution.
    public var kind: OutboxKind
    /// The delivery state.
    public var state: OutboxState
    /// The server's id once it was sent (for an edit or a delete: once done, the edited or deleted message).
    public var serverMessageID: MessageID?
    /// The message an edit or a delete applies to.
    public var targetMessageID: MessageID?
    /// The `content_type` it is posted with (`e2ee.dm`, `e2ee.group`, `e2ee.skd`; empty until it is encrypted, and for deletes).
    public var contentType: String
    /// POST attempts made.
    public var attempts: Int
    /// The last failure, in public words (never content).
    public var lastError: String?
    /// `true` while it waits to be encrypted: queued while the server could not be reached for
    /// its recipients, or (`.failed`) refused as unencryptable until ``Account/retry(_:)``.
    public var isWaitingToBeEncrypted: Bool
    /// When it was queued.
    public var queuedAt: StoreTime
    /// When its state last changed.
    public var updatedAt: StoreTime

    init(_ entry: OutboxMessage) {
        localID = OutboxEntryID(stored: entry.localID)
        channelID = ChannelID(stored: entry.channelID)
        kind = entry.kind
        state = entry.state
        serverMessageID = entry.serverMessageID.map { MessageID(stored: $0) }
        targetMessageID = entry.targetMessageID.map { MessageID(stored: $0) }
        contentType = entry.contentType
        attempts = entry.attempts
        lastError = entry.lastError
        isWaitingToBeEncrypted = entry.isDraft
        queuedAt = entry.createdAt
        updatedAt = entry.updatedAt
    }

    /// The entries of `store`'s outbox in `states`, per channel in sending order, read without
    /// an account or a server (what a command-line `outbox` lists).
    /// - Throws: `KeyStoreError` for a tampered row, GRDB's `DatabaseError`.
    public static func entries(in store: KeyStore, states: Set<OutboxState> = [.queued, .sending, .failed]) async throws -> [OutboxItem] {
        try await store.outbox(states: states).map(OutboxItem.init)
    }
}
