import E2EECrypto
import GRDB

extension KeyStore {
    /// Stores one decryption in one transaction: the advanced receiver or session state, the
    /// used skipped key deleted and new ones stored, prekey and identity effects, the plaintext
    /// and timeline row, and the pending row removed. On failure nothing is changed.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for a replayed ephemeral
    ///   key or an identity that differs from its pin, ``KeyStoreError/missingRecord(_:id:)``
    ///   for an unknown session, prekey or signed prekey, GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func storeDecryption(_ commit: DecryptionCommit) async throws {
        try await writer.write { [self] db in try apply(commit, db) }
    }

    /// Stores many decryptions in one transaction (all or none), as a catch-up batch does.
    ///
    /// Inside one transaction only the last state of each sender-key address survives, so each
    /// final state is written once, first (skipped keys then find their row); everything else
    /// is applied in order, exactly as ``storeDecryption(_:)`` would.
    /// - Throws: as ``storeDecryption(_:)``; on failure none of the batch is stored.
    @_spi(StoreInternals) public func storeDecryptions(_ commits: [DecryptionCommit]) async throws {
        try await writer.write { [self] db in
            var finalStates: [SenderKeyAddress: ReceiverSenderKey] = [:]
            for commit in commits {
                if let state = commit.senderKey?.state { finalStates[state.address] = state }
            }
            for state in finalStates.values { try receiverSenderKeyStore.storeReceiverSenderKey(state, db) }
            // A catch-up batch usually finds no pending ciphertexts: then there is none to remove.
            let anyPending = try pendingStore.hasPending(db)
            for commit in commits { try apply(commit, db, writeSenderKeyState: false, removePending: anyPending) }
        }
    }

    /// Records an incoming message whose key is not here yet: a `.pendingKey` timeline row and
    /// its queued ciphertext. Returns `false` (and changes nothing) for a server id already in
    /// the timeline.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func storePendingMessage(_ message: TimelineMessage, content: String, waitingFor: String, receivedAt: StoreTime) async throws -> Bool {
        try await writer.write { [self] db in
            guard try !timelineStore.containsMessage(id: message.messageID, db) else { return false }
            var row = message
            row.state = .pendingKey
            row.plaintext = nil
            try timelineStore.storeMessage(row, db)
            try pendingStore.storePending(
                PendingCiphertext(messageID: message.messageID, channelID: message.channelID, senderDeviceID: message.senderDeviceID,
                                  content: content, waitingFor: waitingFor, receivedAt: receivedAt), db)
            return true
        }
    }

    /// Stores a message as it is, without key effects (undecryptable with its reason,
    /// unencrypted with its plaintext), removing any pending row for it. A row already
    /// decrypted, unencrypted or deleted is never downgraded to pending or undecryptable (a
    /// late duplicate that fails must not hide a readable message): then nothing changes and
    /// the result is `false`.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func storeMessageOutcome(_ message: TimelineMessage) async throws -> Bool {
        try await writer.write { [self] db in
            switch (message.state, try timelineStore.loadState(id: message.messageID, db)) {
            case (.pendingKey, .decrypted?), (.pendingKey, .unencrypted?), (.pendingKey, .deleted?),
                 (.undecryptable, .decrypted?), (.undecryptable, .unencrypted?), (.undecryptable, .deleted?):
                return false
            default:
                try timelineStore.storeMessage(message, db)
                try pendingStore.removePending(messageID: message.messageID, db)
                return true
            }
        }
    }

    /// Marks a message deleted on the server: its plaintext is wiped and any pending row removed.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown id.
    package func markMessageDeleted(messageID: String) async throws {
        try await writer.write { [self] db in
            try pendingStore.removePending(messageID: messageID, db)
            try timelineStore.markDeleted(id: messageID, db)
        }
    }

    /// The key effects of a decryption (a prekey message's): the identity pinned (a different
    /// pin refuses the commit), the `EK_A` accepted (a replay refuses it), the one-time prekey
    /// consumed. ``apply(_:_:writeSenderKeyState:removePending:)`` adds the session and
    /// sender-key states; a receive batch writes those once per batch instead. Returns whether
    /// the identity was pinned by this commit (`false` when it already was, by a device-list
    /// read for instance).
    @discardableResult
    func applyKeyEffects(_ commit: DecryptionCommit, _ db: Database) throws -> Bool {
        let now = commit.processedAt
        var pinnedNow = false
        if let claim = commit.identity {
            let result = try remoteIdentityStore.recordIdentity(userID: claim.userID, deviceID: claim.deviceID, identityBlob: claim.identityBlob,
                                                                at: now, db)
            if case .changed = result {
                throw KeyStoreError.invalidTransition(.remoteIdentity, id: "\(claim.userID)/\(claim.deviceID)", from: "pinned", to: "different identity")
            }
            if case .pinned = result { pinnedNow = true }
        }
        if let ephemeral = commit.acceptedEphemeralKey {
            try signedPrekeyStore.acceptEphemeralKey(ephemeral.publicKey, signedPrekeyID: ephemeral.signedPrekeyID, at: now, db)
        }
        if let opk = commit.consumedOneTimePrekeyID {
            try oneTimePrekeyStore.consume(id: opk, at: now, db)
        }
        return pinnedNow
    }

    func apply(_ commit: DecryptionCommit, _ db: Database, writeSenderKeyState: Bool = true, removePending: Bool = true) throws {
        let now = commit.processedAt
        try applyKeyEffects(commit, db)
        switch commit.session {
        case .update(let id, let state)?:
            try sessionStore.storeSessionState(id: id, state: state, at: now, db)
        case .install(let userID, let deviceID, let state)?:
            try sessionStore.installSession(userID: userID, deviceID: deviceID, state: state, at: now, db)
        case nil:
            break
        }
        if let advance = commit.senderKey {
            let store = receiverSenderKeyStore
            if writeSenderKeyState { try store.storeReceiverSenderKey(advance.state, db) }
            if let used = advance.usedSkippedIteration {
                try store.removeSkippedKey(advance.state.address, iteration: used, db)
            }
            try store.storeSkippedKeys(advance.newSkippedKeys, at: advance.state.updatedAt, db)
        }
        try timelineStore.storeMessage(commit.message, db)
        if removePending { try pendingStore.removePending(messageID: commit.message.messageID, db) }
    }
}
