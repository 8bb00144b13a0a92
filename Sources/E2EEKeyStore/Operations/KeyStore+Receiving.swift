import E2EECrypto
import Foundation
import GRDB

/// The receive pipeline's named operations (schema `v4`): each write is one transaction.
extension KeyStore {
    /// Stores one lane's batch of receive outcomes in one transaction (all or none): the last
    /// sender-key state of each address and the last session record of each device, then each
    /// write in order — decryptions with their prekey, ephemeral-key and identity effects,
    /// pending rows with their queued ciphertexts, final outcomes, refused inputs — with the
    /// receive-side columns of every row, and the ratchet restart a stored refusal asks for
    /// (docs/spec/protocol.md §3.17). It is the store's one receive write: whatever
    /// arrives, from a socket frame to a catch-up page or a re-drive, is stored through it.
    ///
    /// A decrypted message whose (sender user, payload id) is already used by another message
    /// is stored as a duplicate of that one (no plaintext; its key effects still commit). A
    /// decrypted tombstone erases its message (or, from a device not trusted here, marks it
    /// removed from the server); a message a trusted tombstone already names is stored erased;
    /// an announcement from a trusted device of this account is applied (docs/spec/protocol.md
    /// §5.15, §6.7) — all in the same transaction.
    /// - Returns: what happened to each write, in order.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for a replayed ephemeral key
    ///   or an identity that differs from its pin, ``KeyStoreError/missingRecord(_:id:)`` for an
    ///   unknown prekey or signed prekey, GRDB's `DatabaseError`; on failure nothing is stored.
    @_spi(StoreInternals) public func storeReceiveBatch(_ writes: [ReceiveWrite]) async throws -> [ReceiveWriteResult] {
        try await handOff.write { [self] db in
            var finalKeys: [SenderKeyAddress: ReceiverSenderKey] = [:]
            var finalSessions: [String: SessionUpdate] = [:]
            for write in writes {
                if let key = write.senderKey { finalKeys[key.address] = key }
                if let session = write.session { finalSessions["\(session.userID)/\(session.deviceID)"] = session }
            }
            for key in finalKeys.values { try receiverSenderKeyStore.storeReceiverSenderKey(key, db) }
            let now = StoreTime.now()
            for session in finalSessions.values { try sessionStore.storeUpdate(session, at: now, db) }
            var batch = BatchFacts(anyPending: try pendingStore.hasPending(db),
                                   anyTombstone: try db.row(Self.anyTombstoneSQL) != nil, now: now,
                                   rowInsert: try db.cachedStatement(sql: Self.receivedRowInsertSQL))
            return try writes.map { write in
                let result = try applyReceive(write, &batch, db)
                if write.facts.deleteOf != nil { batch.anyTombstone = true }
                return result
            }
        }
    }

    /// Seals each write's plaintext for its row and makes its payload key (two SHA-256s) before
    /// the transaction, on the calling thread — a lane's, beside the others — so that the one
    /// writer does not (``storeReceiveBatch(_:)`` uses them while the row still matches). A write
    /// whose sealing fails is left to the transaction, which seals it, and fails, as before.
    package func sealAhead(_ writes: inout [ReceiveWrite]) {
        for index in writes.indices {
            guard let row = writes[index].row else { continue }
            writes[index].ahead = try? RowAhead(row, writes[index].facts, sealer: sealer)
        }
    }

    /// Fixes a DM's participants named by our own device, unless they are fixed already or the
    /// channel is pinned as a group, and accepts the DM here (docs/spec/protocol.md §5.10).
    private func fixParticipantsOnce(channelID: String, userIDs: Set<String>, _ db: Database) throws {
        guard try channelTrustStore.loadPin(channelID: channelID, db)?.isDM ?? true,
              try recipientStore.fixParticipants(channelID: channelID, userIDs: userIDs, db) else { return }
        try channelTrustStore.storeStanding(.accepted, channelID: channelID, db)
    }

    /// Records a refused edit or delete on its own (outside a batch).
    /// - Throws: GRDB's `DatabaseError`.
    package func recordRefusedInput(_ input: RefusedInput) async throws {
        try await handOff.queuedWrite { [self] db in try insertRefused(input, db) }
    }

    /// Whether any tombstone is stored: one probe of the partial index `timeline_tombstones`.
    static let anyTombstoneSQL = "SELECT 1 FROM timeline WHERE delete_of IS NOT NULL LIMIT 1"

    /// The message that used a (sender user, payload id) first: a seek of `timeline_payload_key`
    /// (arguments: the pair's key, the sender user, the payload id, the arriving message's id).
    static let payloadUseSQL = """
        SELECT message_id FROM timeline WHERE payload_key = ? AND sender_user_id = ? AND payload_id = ? AND message_id != ?
        """

    /// What every write of one batch shares.
    private struct BatchFacts {
        /// Whether any pending row exists (else no write needs to remove one). Parked rows
        /// (messages sent after this device left a channel) stay, so on a store that has any,
        /// this is true for good: each write also checks that its row was stored before.
        var anyPending: Bool
        /// Whether any trusted tombstone is stored (else no message needs to look for one).
        var anyTombstone: Bool
        /// The batch's time.
        var now: StoreTime
        /// ``KeyStore/receivedRowInsertSQL``, looked up in the statement cache once a batch (its
        /// key is the whole SQL text, which every lookup hashes) and again after it fails (GRDB
        /// drops a failed statement from its cache: it cannot be reused).
        var rowInsert: Statement
    }

    private func applyReceive(_ write: ReceiveWrite, _ batch: inout BatchFacts, _ db: Database) throws -> ReceiveWriteResult {
        var facts = write.facts
        var result = ReceiveWriteResult.stored
        var pinnedNow = false
        let messageID: String
        let removePending = batch.anyPending
        switch write.action {
        case .decrypted(var commit):
            // Its session and sender-key states are the write's: the batch wrote the final ones.
            messageID = commit.message.messageID
            pinnedNow = try applyKeyEffects(commit, db)
            let control = try controlEffect(of: &facts, &commit.message, anyTombstone: batch.anyTombstone, db)
            if control == .storedErased { result = .storedErased }
            var placement: RowPlacement
            do {
                placement = try storeReceivedRow(commit.message, facts, &batch, ahead: write.ahead, db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // A used (sender user, payload id): the unique index refused the row (only that
                // statement is undone), which is then stored as a duplicate of the first (§6).
                // Asking the index first would cost a lookup for every row; reuse is rare.
                guard facts.kind == .message, let payloadID = facts.payloadID, let user = commit.message.senderUserID,
                      let first = try String.fetchOne(
                          db.cachedStatement(sql: Self.payloadUseSQL),
                          arguments: [StoreSchema.payloadKey(senderUserID: user, payloadID: payloadID), user, payloadID, messageID])
                else { throw error }
                commit.message.state = .undecryptable(reason: "duplicate")
                commit.message.plaintext = nil
                facts = ReceivedFacts(kind: .duplicate, payloadID: nil, editedAt: facts.editedAt, duplicateOf: first)
                result = .duplicateOfPayload(first)
                placement = try storeReceivedRow(commit.message, facts, &batch, ahead: write.ahead, db)
            }
            // A pending ciphertext needs its timeline row (a foreign key), so a row this write
            // inserted has none: only a row stored before (a re-drive, a page read again) may.
            if removePending, placement == .updated { try pendingStore.removePending(messageID: messageID, db) }
            if let users = write.fixesParticipants { try fixParticipantsOnce(channelID: commit.message.channelID, userIDs: users, db) }
            if result == .stored { result = try applyControl(control, facts, commit.message, at: batch.now, db) }
        case .pending(var row, let content, let waitingFor, let receivedAt):
            messageID = row.messageID
            if let state = try timelineStore.loadState(id: messageID, db), state != .pendingKey { return .unchanged }
            // A pending row that would be written back as it is (a re-drive that released
            // nothing, a page read again) is left alone: nothing to rewrite.
            if try isUnchangedPending(row, waitingFor: waitingFor, db) { return .unchanged }
            if waitingFor == "request:" + row.channelID,
               try pendingStore.waitingBytes(for: waitingFor, excluding: messageID, db) + content.utf8.count > ProtocolLimits.maxRequestPendingBytes {
                // A request's waiting bytes are bounded: this message is recorded, not kept.
                row.state = .undecryptable(reason: Self.requestOverflowReason)
                row.plaintext = nil
                _ = try storeReceivedRow(row, facts, &batch, ahead: write.ahead, db)
                try pendingStore.removePending(messageID: messageID, db)
                return .stored
            }
            row.state = .pendingKey
            row.plaintext = nil
            _ = try storeReceivedRow(row, facts, &batch, ahead: write.ahead, db)
            try pendingStore.storePending(
                PendingCiphertext(messageID: messageID, channelID: row.channelID, senderDeviceID: row.senderDeviceID, content: content,
                                  waitingFor: waitingFor, receivedAt: receivedAt), db)
        case .outcome(let row):
            messageID = row.messageID
            switch try timelineStore.loadState(id: messageID, db) {
            case .decrypted?, .unencrypted?, .deleted?: return .unchanged
            default: break
            }
            // As above: only a row stored before may have a pending ciphertext.
            if try storeReceivedRow(row, facts, &batch, ahead: write.ahead, db) == .updated, removePending { try pendingStore.removePending(messageID: messageID, db) }
            if let restart = write.sessionRestart { try sessionStore.requestRestart(restart, db) }
        case .refused(let input):
            try insertRefused(input, db)
            if let restart = write.sessionRestart { try sessionStore.requestRestart(restart, db) }
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

    /// The key effects of a decryption (a prekey message's): the identity pinned (a different
    /// pin refuses the batch), the `EK_A` accepted (a replay refuses it), the one-time prekey
    /// consumed. Returns whether the identity was pinned by this write for a user pinned before
    /// (`false` when it already was, by a device-list read for instance, or when this is the
    /// first device of its user met here).
    private func applyKeyEffects(_ commit: DecryptionCommit, _ db: Database) throws -> Bool {
        let now = commit.processedAt
        var pinnedNow = false
        if let claim = commit.identity {
            let result = try remoteIdentityStore.recordIdentity(userID: claim.userID, deviceID: claim.deviceID, identityBlob: claim.identityBlob,
                                                                at: now, db)
            if case .changed = result {
                throw KeyStoreError.invalidTransition(.remoteIdentity, id: "\(claim.userID)/\(claim.deviceID)", from: "pinned", to: "different identity")
            }
            // Reported as a new device only for a user met before (a first contact is no news).
            if case .pinned = result { pinnedNow = try remoteIdentityStore.knewUser(claim.userID, besides: claim.deviceID, before: now, db) }
        }
        if let ephemeral = commit.acceptedEphemeralKey {
            try signedPrekeyStore.acceptEphemeralKey(ephemeral.publicKey, signedPrekeyID: ephemeral.signedPrekeyID, at: now, db)
        }
        if let opk = commit.consumedOneTimePrekeyID {
            try oneTimePrekeyStore.consume(id: opk, at: now, db)
        }
        return pinnedNow
    }

    /// Where ``storeReceivedRow(_:_:_:ahead:_:)`` put a row.
    private enum RowPlacement {
        /// A new row.
        case inserted
        /// Over the row with the same server id (left as it was when `.deleted`).
        case updated
    }

    /// Inserts the row with its receive-side columns, or — when a row with the same server id is
    /// stored (a pending message re-driven, a page read again) — updates that one, except a
    /// `.deleted` row, which stays as it is (a late copy never brings back a deleted message). An
    /// existing edit time is kept when the write has none, and so is an existing payload id (with
    /// its key) when the sender user stays the same: a payload id belongs to its sender user, so
    /// `payload_key` always matches the row's (sender user, payload id).
    ///
    /// Two statements rather than one upsert: nearly every received row is new, and a plain
    /// `INSERT` runs none of the `timeline` table's update triggers (`history_replaced`, the
    /// history change log), where an `INSERT … ON CONFLICT DO UPDATE` sets them up for every row
    /// (about 4 µs of SQLite's time a row, measured outside Swift: Benchmarks/README.md, eleventh
    /// session). The update, on the rare row stored before, runs them as before.
    /// The sealed plaintext and the payload key come from `ahead` (``sealAhead(_:)``) while the
    /// row still fits what they were made from, else they are made here.
    /// - Throws: GRDB's `DatabaseError`: `SQLITE_CONSTRAINT_UNIQUE` when another row holds the
    ///   (sender user, payload id).
    private func storeReceivedRow(_ message: TimelineMessage, _ facts: ReceivedFacts, _ batch: inout BatchFacts, ahead: RowAhead?,
                                  _ db: Database) throws -> RowPlacement {
        let made = if let ahead, ahead.fits(message, facts) { ahead } else { try RowAhead(message, facts, sealer: sealer) }
        // Sixteen values for the statements' sixteen parameters, always: GRDB's check of their
        // count against the statement is skipped (it costs a row more than binding them).
        let arguments: StatementArguments = [
            message.messageID, message.channelID, message.senderUserID, message.senderDeviceID, message.createdAt.microseconds,
            Data(message.contentHash), message.state.columnValue, message.state.reason, made.sealedPlaintext, message.isOwn ? 1 : 0,
            facts.kind.rawValue, facts.editedAt?.microseconds, facts.duplicateOf, facts.payloadID, made.payloadKey, facts.deleteOf]
        batch.rowInsert.setUncheckedArguments(arguments)
        do {
            try batch.rowInsert.execute()
            return .inserted
        } catch let error as DatabaseError
                    where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY || error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // Only the statement is undone. SQLite may name the payload key's index before the
            // server id's when both match, so a refused payload key is a reuse only when no row
            // has this server id.
            batch.rowInsert = try db.cachedStatement(sql: Self.receivedRowInsertSQL)
            let isStored = try error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
                || timelineStore.loadState(id: message.messageID, db) != nil
            guard isStored else { throw error }
            let update = try db.cachedStatement(sql: Self.receivedRowUpdateSQL)
            update.setUncheckedArguments(arguments)
            try update.execute()
            return .updated
        }
    }

    /// Inserts a received row with its receive-side columns (arguments in the order of
    /// ``receivedRowUpdateSQL``'s numbers).
    static let receivedRowInsertSQL = """
        INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, failure_reason,
                              plaintext, is_own, kind, edited_at, duplicate_of, payload_id, payload_key, delete_of)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
        """

    /// Writes the same sixteen values over the row with server id `?1`, unless it is deleted
    /// (``storeReceivedRow(_:_:_:ahead:_:)`` says what is kept). On the right of each `=` a column
    /// names the row as it was.
    static let receivedRowUpdateSQL = """
        UPDATE timeline SET
            channel_id = ?2, sender_user_id = ?3, sender_device_id = ?4, created_at = ?5, content_hash = ?6, state = ?7,
            failure_reason = ?8, plaintext = ?9, is_own = ?10, kind = ?11, edited_at = COALESCE(?12, edited_at), duplicate_of = ?13,
            payload_id = CASE WHEN ?14 IS NOT NULL THEN ?14 WHEN ?3 IS sender_user_id THEN payload_id END,
            payload_key = CASE WHEN ?14 IS NOT NULL THEN ?15 WHEN ?3 IS sender_user_id THEN payload_key END,
            delete_of = ?16
        WHERE message_id = ?1 AND state != 'deleted'
        """

    /// The stored reason of a message a request could not keep (`UndecryptableReason.requestOverflow`).
    static let requestOverflowReason = "request_overflow"

    /// Whether `row` is stored already as a pending row with the same bytes, time and sender,
    /// waiting for `waitingFor`.
    private func isUnchangedPending(_ row: TimelineMessage, waitingFor: String, _ db: Database) throws -> Bool {
        try db.row("""
            SELECT 1 FROM timeline t JOIN pending_ciphertexts p ON p.message_id = t.message_id
            WHERE t.message_id = ? AND t.state = 'pending_key' AND t.content_hash = ? AND t.created_at = ?
                AND t.sender_user_id IS ? AND t.sender_device_id IS ? AND p.waiting_for = ?
            """, [row.messageID, Data(row.contentHash), row.createdAt.microseconds, row.senderUserID, row.senderDeviceID, waitingFor]) != nil
    }

    /// What a decrypted write's control payload (or a tombstone already here) does.
    private enum ControlEffect: Equatable {
        case none
        /// A trusted tombstone: erase the message it names, once stored.
        case erase
        /// A tombstone from a device not trusted here: only mark its message removed.
        case hint(payloadID: String)
        /// The message is stored erased (a trusted tombstone named it before it came).
        case storedErased
        /// An announcement from a trusted device of this account.
        case ownAnnouncement
        /// An announcement from a trusted device of another user (the app is prompted).
        case otherAnnouncement
    }

    /// Decides, before the row is stored, what its control payload does; an untrusted
    /// tombstone loses its `delete_of` (it never erases, not even a message that comes later),
    /// and a message a trusted tombstone names is stored erased.
    private func controlEffect(of facts: inout ReceivedFacts, _ message: inout TimelineMessage, anyTombstone: Bool,
                               _ db: Database) throws -> ControlEffect {
        guard let user = message.senderUserID, let device = message.senderDeviceID else {
            facts.deleteOf = nil
            return .none
        }
        if let deleteOf = facts.deleteOf {
            if try isTrustedSender(channelID: message.channelID, userID: user, deviceID: device, db) { return .erase }
            facts.deleteOf = nil
            return .hint(payloadID: deleteOf)
        }
        if let announcement = facts.announcement {
            if try isTrustedOwnDevice(userID: user, deviceID: device, channelID: message.channelID, db) {
                // Our own decision is applied only when it names parties this device knows.
                return try namesKnownParties(announcement, channelID: message.channelID, db) ? .ownAnnouncement : .none
            }
            if try ownUserID(db) != user, try isTrustedSender(channelID: message.channelID, userID: user, deviceID: device, db) {
                return .otherAnnouncement
            }
            return .none
        }
        if anyTombstone, facts.kind == .message, let payloadID = facts.payloadID,
           try hasTombstone(channelID: message.channelID, senderUserID: user, payloadID: payloadID, db) {
            message.state = .deleted
            message.plaintext = nil
            return .storedErased
        }
        return .none
    }

    /// Applies a stored control payload's effect; returns the write's result.
    private func applyControl(_ effect: ControlEffect, _ facts: ReceivedFacts, _ message: TimelineMessage, at time: StoreTime,
                              _ db: Database) throws -> ReceiveWriteResult {
        guard let user = message.senderUserID else { return .stored }
        switch effect {
        case .none, .storedErased:
            return .stored
        case .erase:
            guard let deleteOf = facts.deleteOf,
                  let target = try tombstoneTarget(channelID: message.channelID, senderUserID: user, payloadID: deleteOf, db) else { return .stored }
            try erase(messageID: target, db)
            return .storedErasing(target)
        case .hint(let payloadID):
            guard let target = try tombstoneTarget(channelID: message.channelID, senderUserID: user, payloadID: payloadID, db) else { return .stored }
            try db.run("UPDATE timeline SET removed_from_server_at = ? WHERE message_id = ? AND removed_from_server_at IS NULL",
                       [time.microseconds, target])
            return db.changesCount > 0 ? .storedMarkingRemoved(target) : .stored
        case .ownAnnouncement:
            guard let announcement = facts.announcement else { return .stored }
            let devices = try devicesNamed(by: announcement, db)
            try applyOwnAnnouncement(announcement, channelID: message.channelID, ownUserID: user, decidedAt: facts.announcedAt, at: time, db)
            return .storedApplyingAnnouncement(devices: devices)
        case .otherAnnouncement:
            guard let announcement = facts.announcement else { return .stored }
            return .storedAnnouncementFromOther(devices: try devicesNamed(by: announcement, db))
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
