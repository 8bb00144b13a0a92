import E2EECrypto
import GRDB

extension KeyStore {
    /// Queues an outgoing message in one transaction: the sending state advanced, the plaintext
    /// and exact content stored, the outbox row added, all before any network I/O.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown sender key or session,
    ///   GRDB's `DatabaseError` (for instance a duplicate local id).
    @discardableResult
    public func queueOutgoingMessage(_ commit: OutgoingCommit) async throws -> OutboxMessage {
        try await writer.write { [self] db in
            if let advance = commit.senderKey {
                try ownSenderKeyStore.storeAdvancedSenderKey(channelID: commit.channelID, keyID: advance.keyID, state: advance.state, db)
            }
            for update in commit.sessions {
                try sessionStore.storeSessionState(id: update.sessionID, state: update.state, at: commit.queuedAt, db)
            }
            return try outboxStore.enqueue(localID: commit.localID, channelID: commit.channelID, content: commit.content,
                                           plaintext: commit.plaintext, at: commit.queuedAt, db)
        }
    }

    /// A POST is starting: `.queued` (or `.failed`, a manual retry) → `.sending`, one more attempt.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    public func markSending(localID: String, at time: StoreTime) async throws {
        try await writer.write { [self] db in
            try outboxStore.transition(localID: localID, from: [.queued, .failed], to: .sending, countAttempt: true, at: time, db)
        }
    }

    /// The server answered 201: `.sending` → `.sent` with its id, and our own message enters the
    /// timeline with its plaintext, in one transaction.
    /// - Throws: as ``markSending(localID:at:)``, GRDB's `DatabaseError` (a server id used twice).
    public func markSent(localID: String, serverMessageID: String, createdAt: StoreTime, senderUserID: String?, senderDeviceID: String?) async throws {
        try await writer.write { [self] db in
            guard let message = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            try outboxStore.transition(localID: localID, from: [.sending, .queued], to: .sent, serverMessageID: serverMessageID, at: createdAt, db)
            try timelineStore.storeMessage(
                TimelineMessage(messageID: serverMessageID, channelID: message.channelID, senderUserID: senderUserID, senderDeviceID: senderDeviceID,
                                createdAt: createdAt, contentHash: message.contentHash, state: .decrypted, plaintext: message.plaintext, isOwn: true), db)
            try pendingStore.removePending(messageID: serverMessageID, db)
        }
    }

    /// Our own echo showed the server id: `.sent` → `.delivered`. Returns `false` when no
    /// outbox message has that id (the echo is someone else's message).
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` from a state other than `.sent`.
    @discardableResult
    public func markDelivered(serverMessageID: String, at time: StoreTime) async throws -> Bool {
        try await writer.write { [self] db in
            guard let message = try outboxStore.loadOutboxMessage(serverMessageID: serverMessageID, db) else { return false }
            if message.state == .delivered { return true }
            try outboxStore.transition(localID: message.localID, from: [.sent], to: .delivered, at: time, db)
            return true
        }
    }

    /// A POST failed: `.sending` → `.failed` when `giveUp` (after the last retry), else back to
    /// `.queued` for the next attempt; the error text is kept.
    /// - Throws: as ``markSending(localID:at:)``.
    public func markFailed(localID: String, error: String, giveUp: Bool, at time: StoreTime) async throws {
        try await writer.write { [self] db in
            try outboxStore.transition(localID: localID, from: [.sending], to: giveUp ? .failed : .queued, error: error, at: time, db)
        }
    }
}
