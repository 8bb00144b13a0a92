import E2EECrypto
import Foundation
import GRDB

extension KeyStore {
    /// Queues an outgoing message in one transaction: a new sender key (with its recipient set),
    /// the sending state advanced, the plaintext and exact content stored, the outbox row added,
    /// all before any network I/O.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown sender key or session,
    ///   GRDB's `DatabaseError` (for instance a duplicate local id).
    @discardableResult
    package func queueOutgoingMessage(_ commit: OutgoingCommit) async throws -> OutboxMessage {
        try await handOff.queuedWrite { [self] db in
            if commit.replacingDraft {
                guard let draft = try outboxStore.loadOutboxMessage(localID: commit.localID, db), draft.state == .failed || draft.state == .queued,
                      draft.isDraft else {
                    throw KeyStoreError.invalidTransition(.outboxMessage, id: commit.localID, from: "not a failed draft", to: "queued")
                }
                try outboxStore.removeOutboxMessage(localID: commit.localID, db)
            }
            if let key = commit.newSenderKey {
                guard key.channelID == commit.channelID, key.isCurrent else {
                    throw KeyStoreError.invalidArgument("a new sender key is the current key of the commit's channel")
                }
                try ownSenderKeyStore.storeNewSenderKey(key, db)
            }
            if let advance = commit.senderKey {
                try ownSenderKeyStore.storeAdvancedSenderKey(channelID: commit.channelID, keyID: advance.keyID, state: advance.state, db)
            }
            for update in commit.sessions {
                // A send advances only sessions it loaded: one removed since (keys retired after
                // a rollback) refuses the commit instead of coming back.
                for entry in update.states where try !sessionStore.containsSession(id: entry.sessionID, db) {
                    throw KeyStoreError.missingRecord(.session, id: entry.sessionID)
                }
                try sessionStore.storeUpdate(update, at: commit.queuedAt, db)
            }
            if let keyID = commit.senderKeyShareKeyID {
                try channelStore.storeShares(channelID: commit.channelID, keyID: keyID, shares: commit.senderKeyShares, at: commit.queuedAt, db)
            }
            return try outboxStore.enqueue(localID: commit.localID, channelID: commit.channelID, content: commit.content,
                                           plaintext: commit.plaintext, at: commit.queuedAt, kind: commit.kind,
                                           contentType: commit.contentType, targetMessageID: commit.targetMessageID, db)
        }
    }

    /// A POST is starting: `.queued` (or `.failed`, a manual retry) → `.sending`, one more attempt.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    package func markSending(localID: String, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            try outboxStore.transition(localID: localID, from: [.queued, .failed], to: .sending, countAttempt: true, at: time, db)
        }
    }

    /// The server answered 201: `.sending` → `.sent` with its id, and our own message enters the
    /// timeline with its plaintext and payload id, in one transaction. Our own tombstone or
    /// announcement (docs/spec/protocol.md §5.15, §6.7) is a control row instead; a tombstone
    /// erases the message it names here and queues the `DELETE` of its server copy.
    /// - Returns: what entered the timeline (and, for a tombstone, the message it erased).
    /// - Throws: as ``markSending(localID:at:)``, GRDB's `DatabaseError` (a server id used twice).
    @discardableResult
    package func markSent(localID: String, serverMessageID: String, createdAt: StoreTime, senderUserID: String?,
                         senderDeviceID: String?) async throws -> SentRow {
        try await handOff.queuedWrite { [self] db in
            guard let message = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            try outboxStore.transition(localID: localID, from: [.sending, .queued, .failed], to: .sent, serverMessageID: serverMessageID, at: createdAt, db)
            guard message.kind == .message else { return .none }
            try timelineStore.storeMessage(
                TimelineMessage(messageID: serverMessageID, channelID: message.channelID, senderUserID: senderUserID, senderDeviceID: senderDeviceID,
                                createdAt: createdAt, contentHash: message.contentHash, state: .decrypted, plaintext: message.plaintext, isOwn: true), db)
            try pendingStore.removePending(messageID: serverMessageID, db)
            guard let payload = try? MessagePayload(json: message.plaintext) else { return .message }
            try db.run("UPDATE OR IGNORE timeline SET payload_id = ?, payload_key = ? WHERE message_id = ?",
                       [payload.id.text, StoreSchema.payloadKey(senderUserID: senderUserID, payloadID: payload.id.text), serverMessageID])
            guard payload.isControl else { return .message }
            try db.run("UPDATE timeline SET kind = 'control', plaintext = NULL, delete_of = ? WHERE message_id = ?",
                       [payload.deleteOf?.text, serverMessageID])
            guard let deleteOf = payload.deleteOf, let senderUserID,
                  let erased = try tombstoneTarget(channelID: message.channelID, senderUserID: senderUserID, payloadID: deleteOf.text, db) else {
                return .control(erased: nil)
            }
            try erase(messageID: erased, db)
            _ = try outboxStore.enqueue(localID: UUID().uuidString.lowercased(), channelID: message.channelID, content: "",
                                        plaintext: SecretBytes(copying: []), at: createdAt, kind: .delete,
                                        targetMessageID: message.targetMessageID ?? erased, db)
            return .control(erased: erased)
        }
    }

    /// Our own echo showed the server id: `.sent` → `.delivered`. Returns `false` when no
    /// outbox message has that id (the echo is someone else's message).
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` from a state other than `.sent`.
    @discardableResult
    package func markDelivered(serverMessageID: String, at time: StoreTime) async throws -> Bool {
        try await handOff.queuedWrite { [self] db in
            guard let message = try outboxStore.loadOutboxMessage(serverMessageID: serverMessageID, db) else { return false }
            if message.state == .delivered { return true }
            try outboxStore.transition(localID: message.localID, from: [.sent], to: .delivered, at: time, db)
            return true
        }
    }

    /// An edit or delete of our own message was accepted by the server: the outbox entry is
    /// removed and its effect applied to the timeline in one transaction (an edit replaces the
    /// target's plaintext with the one we encrypted; a delete wipes it).
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidArgument(_:)``
    ///   for an entry that is not an edit or a delete.
    package func completeEditOrDelete(localID: String, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            guard let entry = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            guard let target = entry.targetMessageID, entry.kind == .edit || entry.kind == .delete else {
                throw KeyStoreError.invalidArgument("outbox entry is not an edit or a delete")
            }
            if entry.kind == .delete {
                if try timelineStore.containsMessage(id: target, db) { try timelineStore.markDeleted(id: target, db) }
            } else if var message = try timelineStore.loadMessage(id: target, db), message.state == .decrypted {
                message.plaintext = entry.plaintext
                try timelineStore.storeMessage(message, db)
            }
            try outboxStore.removeOutboxMessage(localID: localID, db)
        }
    }

    /// A duplicate copy the server stored after an unknown POST outcome was deleted again: its
    /// timeline row (if the receive side stored one) goes too — only when that row is the copy:
    /// received (not our own send's row), from `senderUserID`'s device `senderDeviceID` (ours),
    /// with `contentHash`, the hash of bytes an outbox entry of its channel holds. A row with
    /// that id and anything else (another user's message a server named) stays.
    /// - Throws: GRDB's `DatabaseError`.
    package func forgetDuplicateCopy(serverMessageID: String, senderUserID: String, senderDeviceID: String, contentHash: [UInt8]) async throws {
        try await handOff.queuedWrite { db in
            try db.run(Self.forgetDuplicateSQL, [serverMessageID, senderUserID, senderDeviceID, Data(contentHash)])
        }
    }

    private static let forgetDuplicateSQL = """
        DELETE FROM timeline
        WHERE message_id = ? AND is_own = 0 AND sender_user_id = ? AND sender_device_id = ? AND content_hash = ?
          AND EXISTS (SELECT 1 FROM outbox WHERE outbox.channel_id = timeline.channel_id AND outbox.content_hash = timeline.content_hash)
        """

    /// A message that could not be encrypted (T12): stored as a `.failed` draft with its
    /// plaintext and no content, so it is visible, never sent, and can be retried (re-encrypted
    /// then: nothing of it ever left the device).
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func storeUnencryptableDraft(localID: String, channelID: String, plaintext: SecretBytes, kind: OutboxKind, targetMessageID: String?,
                                        error: String, at time: StoreTime) async throws -> OutboxMessage {
        try await storeDraft(localID: localID, channelID: channelID, plaintext: plaintext, kind: kind, targetMessageID: targetMessageID,
                             state: .failed, error: error, at: time)
    }

    /// A manual retry: `.failed` → `.queued` with a fresh attempt budget.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    package func requeueFailed(localID: String, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            try outboxStore.transition(localID: localID, from: [.failed], to: .queued, at: time, db)
            try db.run("UPDATE outbox SET attempts = 0, answered_failures = 0 WHERE local_id = ?", [localID])
        }
    }

    /// A POST failed: `.sending` → `.failed` when `giveUp` (after the last retry), else back to
    /// `.queued` for the next attempt; the error text is kept.
    /// - Throws: as ``markSending(localID:at:)``.
    package func markFailed(localID: String, error: String, giveUp: Bool, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            try outboxStore.transition(localID: localID, from: [.sending], to: giveUp ? .failed : .queued, error: error, at: time, db)
        }
    }
}
