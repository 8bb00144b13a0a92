import E2EECrypto
import GRDB

extension KeyStore {
    /// A POST got no answer (the server is unreachable): `.sending` → `.queued`, the error text
    /// kept, nothing counted toward giving up (docs/spec/sync.md "Outbox": unreachable is not failed).
    /// The attempt stays counted in `attempts`, so the next one reconciles first.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    package func markUnreachable(localID: String, error: String, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            try outboxStore.transition(localID: localID, from: [.sending], to: .queued, error: error, at: time, db)
        }
    }

    /// The server answered an attempt with an error: one more answered failure; `.sending` →
    /// `.failed` once there are `limit` of them, else back to `.queued`. Returns whether it
    /// failed.
    /// - Throws: as ``markUnreachable(localID:error:at:)``.
    @discardableResult
    package func markAnsweredFailure(localID: String, error: String, limit: Int, at time: StoreTime) async throws -> Bool {
        try await handOff.queuedWrite { [self] db in
            guard let entry = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            let giveUp = entry.answeredFailures + 1 >= limit
            try outboxStore.transition(localID: localID, from: [.sending], to: giveUp ? .failed : .queued, error: error, at: time, db)
            try db.run("UPDATE outbox SET answered_failures = answered_failures + 1 WHERE local_id = ?", [localID])
            return giveUp
        }
    }

    /// A message that could not be encrypted yet because the server (member list, device
    /// bundles) could not be reached: stored `.queued` as a draft with its plaintext and no
    /// content; the outbox encrypts it when the server answers again, in channel order.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func storeWaitingDraft(localID: String, channelID: String, plaintext: SecretBytes, kind: OutboxKind, targetMessageID: String?,
                                  error: String, at time: StoreTime) async throws -> OutboxMessage {
        try await storeDraft(localID: localID, channelID: channelID, plaintext: plaintext, kind: kind, targetMessageID: targetMessageID,
                             state: .queued, error: error, at: time)
    }

    /// A draft (plaintext, no content) added to the outbox in `state` (`.queued` or `.failed`)
    /// with `error` as its reason, in one transaction.
    func storeDraft(localID: String, channelID: String, plaintext: SecretBytes, kind: OutboxKind, targetMessageID: String?,
                    state: OutboxState, error: String, at time: StoreTime) async throws -> OutboxMessage {
        try await handOff.queuedWrite { [self] db in
            _ = try outboxStore.enqueue(localID: localID, channelID: channelID, content: "", plaintext: plaintext, at: time, kind: kind,
                                        targetMessageID: targetMessageID, db)
            try outboxStore.transition(localID: localID, from: [.queued], to: state, error: error, at: time, db)
            guard let stored = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            return stored
        }
    }

    /// A waiting draft turned out unencryptable (T12: no devices, refused reads): `.queued` →
    /// `.failed` with the reason; a manual retry encrypts it again.
    /// - Throws: as ``markUnreachable(localID:error:at:)``.
    package func markDraftUnencryptable(localID: String, error: String, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in
            try outboxStore.transition(localID: localID, from: [.queued], to: .failed, error: error, at: time, db)
        }
    }

    /// Whether `channelID` has a queued draft (a later message must wait behind it, unencrypted,
    /// to keep the channel's order).
    /// - Throws: GRDB's `DatabaseError`.
    package func hasWaitingDraft(channelID: String) async throws -> Bool {
        try await read { db in
            try db.count("SELECT COUNT(*) FROM outbox WHERE channel_id = ? AND state = 'queued' AND content = '' AND kind != 'delete'",
                         [channelID]) > 0
        }
    }

    /// Cancels an entry that has not gone out: a `.queued` or `.failed` entry is removed (its
    /// sealed plaintext with it). Returns the removed entry.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``, ``KeyStoreError/invalidTransition(_:id:from:to:)``
    ///   for an entry being sent or already sent.
    @discardableResult
    package func cancelOutboxEntry(localID: String) async throws -> OutboxMessage {
        try await handOff.queuedWrite { [self] db in
            guard let entry = try outboxStore.loadOutboxMessage(localID: localID, db) else {
                throw KeyStoreError.missingRecord(.outboxMessage, id: localID)
            }
            guard entry.state == .queued || entry.state == .failed else {
                throw KeyStoreError.invalidTransition(.outboxMessage, id: localID, from: entry.state.rawValue, to: "cancelled")
            }
            try outboxStore.removeOutboxMessage(localID: localID, db)
            return entry
        }
    }
}
