import E2EECrypto
import Foundation
import GRDB

/// The receive pipeline's named operations (schema `v4`): each write is one transaction.
extension KeyStore {
    /// Stores one lane's batch of receive outcomes in one transaction (all or none): the last
    /// sender-key state of each address and the last session record of each device, then each
    /// write in order — decryptions with their prekey, ephemeral-key and identity effects,
    /// pending rows with their queued ciphertexts, final outcomes, refused inputs — with the
    /// receive-side columns of every row.
    ///
    /// A decrypted message whose (sender user, payload id) is already used by another message
    /// is stored as a duplicate of that one (no plaintext; its key effects still commit).
    /// - Returns: what happened to each write, in order.
    /// - Throws: as ``storeDecryption(_:)`` (a replayed ephemeral key, an identity that differs
    ///   from its pin, an unknown prekey), GRDB's `DatabaseError`; on failure nothing is stored.
    public func storeReceiveBatch(_ writes: [ReceiveWrite]) async throws -> [ReceiveWriteResult] {
        try await writer.write { [self] db in
            var finalKeys: [SenderKeyAddress: ReceiverSenderKey] = [:]
            var finalSessions: [String: SessionRecordWrite] = [:]
            for write in writes {
                if let key = write.senderKey { finalKeys[key.address] = key }
                if let session = write.session { finalSessions["\(session.userID)/\(session.deviceID)"] = session }
            }
            for key in finalKeys.values { try receiverSenderKeyStore.storeReceiverSenderKey(key, db) }
            let now = StoreTime.now()
            for session in finalSessions.values { try storeSessionStates(session, at: now, db) }
            let anyPending = try pendingStore.hasPending(db)
            return try writes.map { try applyReceive($0, removePending: anyPending, db) }
        }
    }

    /// Applies a `message.delete`: an existing message is marked deleted (plaintext wiped,
    /// pending row removed); an unknown id gets a deleted `control` tombstone so that a late
    /// copy stays deleted; a message of another channel is left alone.
    /// - Throws: GRDB's `DatabaseError`.
    public func markReceivedDeleted(messageID: String, channelID: String, at time: StoreTime) async throws -> ReceivedDeleteResult {
        try await writer.write { [self] db in
            guard let row = try db.row("SELECT channel_id, state FROM timeline WHERE message_id = ?", [messageID]) else {
                try db.run(
                    """
                    INSERT INTO timeline (message_id, channel_id, created_at, content_hash, state, kind)
                    VALUES (?, ?, ?, zeroblob(32), 'deleted', 'control')
                    """, [messageID, channelID, time.microseconds])
                return .tombstoned
            }
            let storedChannel: String = try row.decode("channel_id", table: TimelineStore.table)
            guard storedChannel == channelID else { return .channelMismatch }
            let state: String = try row.decode("state", table: TimelineStore.table)
            guard state != "deleted" else { return .alreadyDeleted }
            try pendingStore.removePending(messageID: messageID, db)
            try timelineStore.markDeleted(id: messageID, db)
            return .deleted
        }
    }

    /// Records a refused edit or delete on its own (outside a batch).
    /// - Throws: GRDB's `DatabaseError`.
    public func recordRefusedInput(_ input: RefusedInput) async throws {
        try await writer.write { [self] db in try insertRefused(input, db) }
    }

    private func applyReceive(_ write: ReceiveWrite, removePending: Bool, _ db: Database) throws -> ReceiveWriteResult {
        var facts = write.facts
        var result = ReceiveWriteResult.stored
        var pinnedNow = false
        let messageID: String
        switch write.action {
        case .decrypted(var commit):
            // The commit's `session` and `senderKey` are not used: the batch wrote the final ones.
            messageID = commit.message.messageID
            pinnedNow = try applyKeyEffects(commit, db)
            do {
                try storeReceivedRow(commit.message, facts, db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // A used (sender user, payload id): the unique index refused the row (only that
                // statement is undone), which is then stored as a duplicate of the first (§6).
                // Asking the index first would cost a lookup for every row; reuse is rare.
                guard facts.kind == .message, let payloadID = facts.payloadID, let user = commit.message.senderUserID,
                      let first = try String.fetchOne(
                          db.cachedStatement(sql: "SELECT message_id FROM timeline WHERE sender_user_id = ? AND payload_id = ? AND message_id != ?"),
                          arguments: [user, payloadID, messageID]) else { throw error }
                commit.message.state = .undecryptable(reason: "duplicate")
                commit.message.plaintext = nil
                facts = ReceivedFacts(kind: .duplicate, payloadID: nil, editedAt: facts.editedAt, duplicateOf: first)
                result = .duplicateOfPayload(first)
                try storeReceivedRow(commit.message, facts, db)
            }
            if removePending { try pendingStore.removePending(messageID: messageID, db) }
        case .pending(var row, let content, let waitingFor, let receivedAt):
            messageID = row.messageID
            if let state = try timelineStore.loadState(id: messageID, db), state != .pendingKey { return .unchanged }
            row.state = .pendingKey
            row.plaintext = nil
            try storeReceivedRow(row, facts, db)
            try pendingStore.storePending(
                PendingCiphertext(messageID: messageID, channelID: row.channelID, senderDeviceID: row.senderDeviceID, content: content,
                                  waitingFor: waitingFor, receivedAt: receivedAt), db)
        case .outcome(let row):
            messageID = row.messageID
            switch try timelineStore.loadState(id: messageID, db) {
            case .decrypted?, .unencrypted?, .deleted?: return .unchanged
            default: break
            }
            try storeReceivedRow(row, facts, db)
            if removePending { try pendingStore.removePending(messageID: messageID, db) }
        case .refused(let input):
            try insertRefused(input, db)
            return .stored
        }
        if let claim = write.identityChange, try recordIdentityChangeOnce(claim, db), result == .stored {
            result = .storedWithNewIdentityChange
        }
        // A duplicate's pin is not reported: the row is hidden, and the device-list read that
        // the first contact needed (§2.9) announced the device already.
        if pinnedNow, result == .stored { result = .storedWithNewPin }
        return result
    }

    /// Inserts the row with its receive-side columns in one statement, or replaces the row
    /// with the same server id — except a `.deleted` row, which stays as it is (a late copy
    /// never brings back a deleted message). An existing edit time and payload id are kept
    /// when the write has none.
    private func storeReceivedRow(_ message: TimelineMessage, _ facts: ReceivedFacts, _ db: Database) throws {
        let plaintext = try sealer.sealIfPresent(message.plaintext, table: TimelineStore.table, column: "plaintext", rowID: message.messageID)
        try db.run(
            """
            INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, failure_reason,
                                  plaintext, is_own, kind, edited_at, duplicate_of, payload_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (message_id) DO UPDATE SET
                channel_id = excluded.channel_id, sender_user_id = excluded.sender_user_id, sender_device_id = excluded.sender_device_id,
                created_at = excluded.created_at, content_hash = excluded.content_hash, state = excluded.state,
                failure_reason = excluded.failure_reason, plaintext = excluded.plaintext, is_own = excluded.is_own, kind = excluded.kind,
                edited_at = COALESCE(excluded.edited_at, timeline.edited_at), duplicate_of = excluded.duplicate_of,
                payload_id = COALESCE(excluded.payload_id, timeline.payload_id)
            WHERE timeline.state != 'deleted'
            """,
            [message.messageID, message.channelID, message.senderUserID, message.senderDeviceID, message.createdAt.microseconds,
             Data(message.contentHash), message.state.columnValue, message.state.reason, plaintext, message.isOwn ? 1 : 0,
             facts.kind.rawValue, facts.editedAt?.microseconds, facts.duplicateOf, facts.payloadID])
    }

    /// Stores a device's session states: the previous current row is archived, then each
    /// named row is inserted or updated (`updated_at` keeps their most-recently-used order).
    private func storeSessionStates(_ write: SessionRecordWrite, at time: StoreTime, _ db: Database) throws {
        try db.run("UPDATE sessions SET is_current = 0 WHERE remote_user_id = ? AND remote_device_id = ? AND is_current = 1",
                   [write.userID, write.deviceID])
        for (rank, entry) in write.states.enumerated() {
            let updated = time.microseconds - Int64(rank)
            try db.run(
                """
                INSERT INTO sessions (id, remote_user_id, remote_device_id, is_current, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET is_current = excluded.is_current, state = excluded.state, updated_at = excluded.updated_at
                """,
                [entry.sessionID, write.userID, write.deviceID, entry.isCurrent ? 1 : 0,
                 try sealer.seal(entry.state, table: SessionStore.table, column: "state", rowID: entry.sessionID), updated, updated])
        }
    }

    /// Records an identity change unless the same new blob is already recorded and unanswered;
    /// `true` when a new change row was written.
    private func recordIdentityChangeOnce(_ claim: RemoteIdentityClaim, _ db: Database) throws -> Bool {
        let result = try remoteIdentityStore.recordIdentity(userID: claim.userID, deviceID: claim.deviceID, identityBlob: claim.identityBlob,
                                                            at: .now(), db)
        if case .changed = result { return true }
        return false
    }

    private func insertRefused(_ input: RefusedInput, _ db: Database) throws {
        try db.run(
            "INSERT INTO refused_inputs (channel_id, message_id, input_kind, reason, content_hash, seen_at) VALUES (?, ?, ?, ?, ?, ?)",
            [input.channelID, input.messageID, input.kind.rawValue, input.reason, input.contentHash.map { Data($0) }, input.seenAt.microseconds])
    }
}
