import E2EECrypto
import Foundation
import GRDB

/// Durable link transfers, both ends (docs/spec/protocol.md §11.3–§11.6, store `v23`): the
/// primary's sealed spool, its sending state and stored envelopes; the new device's state, the
/// chunks it holds and the phase imports. Each method is one transaction.
extension KeyStore {
    // MARK: Primary

    /// Writes one phase of `transferID` to the sealed spool (replacing any earlier attempt at
    /// it): `fill` appends the records in order. One transaction. `recordsPerChunk` bounds the
    /// records of a chunk (tests; `nil`: as many as fit).
    /// - Throws: what `fill` throws (``TransferSpoolWriter/Refusal``), GRDB's `DatabaseError`.
    package func writeSpool(transferID: String, phase: Int, recordsPerChunk: Int? = nil, _ fill: @Sendable @escaping (inout TransferSpoolWriter) throws -> Void) async throws
        -> TransferSpoolWriter.Summary {
        try await write { [sealer] db in
            var writer = try TransferSpoolWriter(db: db, sealer: sealer, transferID: transferID, phase: phase, recordsPerChunk: recordsPerChunk)
            try fill(&writer)
            return try writer.finish()
        }
    }

    /// The records of chunk `chunk` (from 0) of a spooled phase, opened; `nil` when there is none.
    /// - Throws: GRDB's `DatabaseError`, sealing errors.
    package func spoolChunk(transferID: String, phase: Int, chunk: Int) async throws -> SecretBytes? {
        try await read { [sealer] db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT records FROM transfer_spool WHERE transfer_id = ? AND phase = ? AND chunk = ?",
                                                 arguments: [transferID, phase, chunk]) else { return nil }
            return try sealer.open(sealed, table: TransferSpoolWriter.table, column: "records",
                                   rowID: TransferSpoolWriter.rowID(transferID, phase, chunk))
        }
    }

    /// How many records the spooled chunks of `phase` below `chunk` hold (what an
    /// acknowledgement up to them covers).
    /// - Throws: GRDB's `DatabaseError`.
    package func spoolRecordCount(transferID: String, phase: Int, below chunk: Int) async throws -> Int {
        try await read { db in
            try db.count("SELECT COALESCE(SUM(record_count), 0) FROM transfer_spool WHERE transfer_id = ? AND phase = ? AND chunk < ?",
                         [transferID, phase, chunk])
        }
    }

    /// Saves the primary's state of a transfer.
    /// - Throws: GRDB's `DatabaseError`.
    package func saveOutgoingTransfer(_ state: OutgoingTransferState) async throws {
        try await write { db in try Self.save(state, db) }
    }

    /// Saves the state after index `index` was first posted as `content` (the stored envelope).
    /// - Throws: GRDB's `DatabaseError`.
    package func recordTransferSent(_ state: OutgoingTransferState, index: UInt32, content: String) async throws {
        try await write { db in
            try db.run("INSERT OR REPLACE INTO transfer_envelopes (transfer_id, idx, content) VALUES (?, ?, ?)", [state.transferID, index, content])
            try Self.save(state, db)
        }
    }

    /// The stored envelope posted for `index`.
    /// - Throws: GRDB's `DatabaseError`.
    package func transferEnvelope(transferID: String, index: UInt32) async throws -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT content FROM transfer_envelopes WHERE transfer_id = ? AND idx = ?", arguments: [transferID, index])
        }
    }

    /// Every transfer this device sends or sent, oldest first.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    package func outgoingTransfers() async throws -> [OutgoingTransferState] {
        try await read { db in try db.rows("SELECT * FROM transfer_outgoing ORDER BY started_at, transfer_id").map(Self.outgoing) }
    }

    /// Saves the final state of a transfer this device sent and deletes its spool and envelopes.
    /// - Throws: GRDB's `DatabaseError`.
    package func endOutgoingTransfer(_ state: OutgoingTransferState) async throws {
        try await write { db in
            try Self.save(state, db)
            try db.run("DELETE FROM transfer_spool WHERE transfer_id = ?", [state.transferID])
            try db.run("DELETE FROM transfer_envelopes WHERE transfer_id = ?", [state.transferID])
        }
    }

    // MARK: New device

    /// Saves the new device's state of a transfer.
    /// - Throws: GRDB's `DatabaseError`.
    package func saveIncomingTransfer(_ state: IncomingTransferState) async throws {
        try await write { db in try Self.save(state, db) }
    }

    /// Every transfer this device receives or received, oldest first.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    /// The transfer this new device is receiving whose phase-1 trust part has not committed
    /// yet, if any (while it runs, messages from other users wait for it, §11.1).
    /// - Throws: GRDB's `DatabaseError`.
    package func transferAwaitingTrust(_ db: Database) throws -> String? {
        // Read by every receiving lane: a cached statement.
        try String.fetchOne(db.cachedStatement(sql: "SELECT transfer_id FROM transfer_incoming WHERE status = 'running' AND imported1 = 0 ORDER BY started_at LIMIT 1"))
    }

    package func incomingTransfers() async throws -> [IncomingTransferState] {
        try await read { db in try db.rows("SELECT * FROM transfer_incoming ORDER BY started_at, transfer_id").map(Self.incoming) }
    }

    /// Commits one message at `nextIndex` in one transaction: its chunk's records (if any,
    /// sealed), the new state, and the wiping of the opened copy kept in the timeline row
    /// `messageID` (``transferInbox(channelID:senderDeviceID:)``).
    /// - Throws: GRDB's `DatabaseError`, sealing errors.
    package func commitTransferMessage(_ state: IncomingTransferState, index: UInt32, records: SecretBytes?, recordCount: Int,
                                       messageID: String?) async throws {
        try await write { [sealer] db in
            if let records {
                let sealed = try sealer.seal(records, table: "transfer_received", column: "records", rowID: "\(state.transferID)/\(index)")
                try db.run("INSERT OR REPLACE INTO transfer_received (transfer_id, idx, record_count, records) VALUES (?, ?, ?, ?)",
                           [state.transferID, index, recordCount, sealed])
            }
            if let messageID { try db.run("UPDATE timeline SET plaintext = NULL WHERE message_id = ?", [messageID]) }
            try Self.save(state, db)
        }
    }

    /// Wipes the opened copy of a transfer message kept in the timeline row `messageID`.
    /// - Throws: GRDB's `DatabaseError`.
    package func wipeTransferCopy(messageID: String) async throws {
        try await write { db in try db.run("UPDATE timeline SET plaintext = NULL WHERE message_id = ?", [messageID]) }
    }

    /// The held chunk at `index`, opened.
    /// - Throws: GRDB's `DatabaseError`, sealing errors.
    package func receivedChunk(transferID: String, index: UInt32) async throws -> SecretBytes? {
        try await read { [sealer] db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT records FROM transfer_received WHERE transfer_id = ? AND idx = ?",
                                                 arguments: [transferID, index]) else { return nil }
            return try sealer.open(sealed, table: "transfer_received", column: "records", rowID: "\(transferID)/\(index)")
        }
    }

    /// Imports the trust records at the head of the held chunks `indexes` (at most `trustCount`
    /// of them, §11.5) and saves `state` (with its import flag set by the caller) in one
    /// transaction; the report's figures are added to the state's.
    /// - Throws: ``TransferImportRefusal`` (nothing is applied), ``KeyStoreError/missingRecord(_:id:)``
    ///   without an account, GRDB's `DatabaseError`, sealing errors.
    package func importTransferTrust(_ state: IncomingTransferState, indexes: ClosedRange<UInt32>?, trustCount: Int, now: Int64) async throws
        -> (IncomingTransferState, TrustImportReport) {
        try await write { [sealer] db in
            guard let account = try db.row("SELECT user_id, device_id FROM account WHERE id = 1") else {
                throw KeyStoreError.missingRecord(.account, id: "1")
            }
            var records: [TrustRecord] = []
            if let indexes {
                for index in indexes where records.count < trustCount {
                    guard let sealed = try Data.fetchOne(db, sql: "SELECT records FROM transfer_received WHERE transfer_id = ? AND idx = ?",
                                                         arguments: [state.transferID, index]) else { throw TransferImportRefusal.missingChunk(index) }
                    var decoder = TransferRecordDecoder(records: try sealer.open(sealed, table: "transfer_received", column: "records",
                                                                                 rowID: "\(state.transferID)/\(index)"))
                    while records.count < trustCount, let record = try decoder.next() {
                        guard case .trust(let trust) = record else { throw TransferImportRefusal.notTrust }
                        records.append(trust)
                    }
                }
            }
            guard records.count == trustCount else { throw TransferImportRefusal.countMismatch(found: records.count, expected: trustCount) }
            var importer = TrustImporter(db: db, ownUserID: try account.decode("user_id", table: "account"),
                                         ownDeviceID: try account.decode("device_id", table: "account"), ownUserKey: state.userKey,
                                         source: state.primaryDeviceID, now: now)
            try importer.apply(records)
            // A trust part imported ends a skip: pins from now on are this device's decisions.
            try db.run("DELETE FROM transfer_skip")
            var saved = state
            saved.applied += importer.report.applied
            saved.conflicts += importer.report.conflicts.count
            saved.skipped += importer.report.skipped.count
            try Self.save(saved, db)
            return (saved, importer.report)
        }
    }

    /// Saves the final state of a received transfer, deletes its held chunks and wipes every
    /// opened copy kept in its channel.
    /// - Throws: GRDB's `DatabaseError`.
    package func endIncomingTransfer(_ state: IncomingTransferState) async throws {
        try await write { db in
            try Self.save(state, db)
            try db.run("DELETE FROM transfer_received WHERE transfer_id = ?", [state.transferID])
            try db.run("UPDATE timeline SET plaintext = NULL WHERE channel_id = ? AND plaintext IS NOT NULL", [state.channelID])
        }
    }

    /// The transfer messages opened in `channelID` from `senderDeviceID` whose copy is still
    /// kept (committed by the receive pipeline, not yet by the transfer), oldest first: what a
    /// restart feeds the transfer again.
    /// - Throws: GRDB's `DatabaseError`, sealing errors.
    package func transferInbox(channelID: String, senderDeviceID: String) async throws -> [(messageID: String, plaintext: SecretBytes)] {
        try await read { [sealer] db in
            try db.rows("""
                SELECT message_id, plaintext FROM timeline WHERE channel_id = ? AND sender_device_id = ? AND plaintext IS NOT NULL
                ORDER BY created_at, message_id
                """, [channelID, senderDeviceID]).map { row in
                let id: String = try row.decode("message_id", table: "timeline")
                let sealed: Data = try row.decode("plaintext", table: "timeline")
                return (id, try sealer.open(sealed, table: "timeline", column: "plaintext", rowID: id))
            }
        }
    }

    /// Records that the user went on without the failed transfer (§11.1): until a trust part
    /// imports, key standings decided here are provisional.
    /// - Throws: GRDB's `DatabaseError`.
    package func recordTransferSkipped(at time: StoreTime) async throws {
        try await write { db in try db.run("INSERT OR REPLACE INTO transfer_skip (id, skipped_at) VALUES (1, ?)", [time.microseconds]) }
    }

    /// Inside the caller's transaction: marks the key standing of `userID`, first decided on
    /// this device, provisional when a skip stands (``recordTransferSkipped(at:)``).
    /// - Throws: GRDB's `DatabaseError`.
    package static func markProvisionalIfSkipped(userID: String, nowSeconds: Int64, _ db: Database) throws {
        guard try db.row("SELECT 1 FROM transfer_skip WHERE id = 1") != nil else { return }
        try db.run("INSERT OR REPLACE INTO provisional_pins (user_id, pinned_at) VALUES (?, ?)", [userID, nowSeconds * 1_000_000])
    }

    /// The users whose key standing is provisional (decided after a skip), sorted.
    /// - Throws: GRDB's `DatabaseError`.
    package func provisionalPins() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "SELECT user_id FROM provisional_pins ORDER BY user_id") }
    }

    // MARK: Rows

    private static func save(_ s: OutgoingTransferState, _ db: Database) throws {
        try requireRunning("transfer_outgoing", s.transferID, db)
        try db.run("""
            INSERT OR REPLACE INTO transfer_outgoing (transfer_id, device_id, channel_id, status, failure, manifest1, manifest2, sent_up_to,
                highest_ack, started_at, progress_at, timeout_at, timeout_seconds, window_resent_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [s.transferID, s.deviceID, s.channelID, s.status.rawValue, s.failure, Data(s.manifest1), s.manifest2.map { Data($0) },
                  s.sentUpTo, s.highestAck, s.startedAt, s.progressAt, s.timeoutAt, s.timeoutSeconds, s.windowResentAt])
    }

    private static func save(_ s: IncomingTransferState, _ db: Database) throws {
        try requireRunning("transfer_incoming", s.transferID, db)
        try db.run("""
            INSERT OR REPLACE INTO transfer_incoming (transfer_id, primary_device_id, channel_id, user_key, status, failure, next_index, manifest1,
                manifest2, imported1, imported2, records_done, applied, conflicts, skipped, started_at, progress_at, ack_at, ack_seconds,
                idle_acks, duplicate_ack_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [s.transferID, s.primaryDeviceID, s.channelID, Data(s.userKey), s.status.rawValue, s.failure, s.nextIndex,
                  s.manifest1.map { Data($0) }, s.manifest2.map { Data($0) }, s.imported1, s.imported2, s.recordsDone, s.applied,
                  s.conflicts, s.skipped, s.startedAt, s.progressAt, s.ackAt, s.ackSeconds, s.idleAcks, s.duplicateAckAt])
    }

    /// A transfer the user cancelled (or that ended) meanwhile is not written over by its run.
    private static func requireRunning(_ table: String, _ transferID: String, _ db: Database) throws {
        let stored = try String.fetchOne(db, sql: "SELECT status FROM \(table) WHERE transfer_id = ?", arguments: [transferID])
        guard stored == nil || stored == TransferStatus.running.rawValue else { throw TransferStopped() }
    }

    /// Ends a running transfer this device sends or receives as cancelled by the user; `false`
    /// when there is none running under `transferID`.
    /// - Throws: GRDB's `DatabaseError`.
    package func cancelStoredTransfer(_ transferID: String) async throws -> Bool {
        try await write { db in
            try db.run("UPDATE transfer_outgoing SET status = 'cancelled', failure = 'cancelled by the user' WHERE transfer_id = ? AND status = 'running'",
                       [transferID])
            var changed = db.changesCount
            try db.run("UPDATE transfer_incoming SET status = 'cancelled', failure = 'cancelled by the user' WHERE transfer_id = ? AND status = 'running'",
                       [transferID])
            changed += db.changesCount
            try db.run("DELETE FROM transfer_spool WHERE transfer_id = ?", [transferID])
            try db.run("DELETE FROM transfer_envelopes WHERE transfer_id = ?", [transferID])
            try db.run("DELETE FROM transfer_received WHERE transfer_id = ?", [transferID])
            return changed > 0
        }
    }

    private static func status(_ row: Row, _ table: String) throws -> TransferStatus {
        let raw: String = try row.decode("status", table: table)
        guard let status = TransferStatus(rawValue: raw) else { throw KeyStoreError.corruptColumn(table: table, column: "status") }
        return status
    }

    private static func outgoing(_ row: Row) throws -> OutgoingTransferState {
        let t = "transfer_outgoing"
        let manifest1: Data = try row.decode("manifest1", table: t)
        let manifest2: Data? = try row.decodeIfPresent("manifest2", table: t)
        return OutgoingTransferState(
            transferID: try row.decode("transfer_id", table: t), deviceID: try row.decode("device_id", table: t),
            channelID: try row.decode("channel_id", table: t), status: try status(row, t), failure: try row.decodeIfPresent("failure", table: t),
            manifest1: [UInt8](manifest1), manifest2: manifest2.map { [UInt8]($0) }, sentUpTo: try row.decodeUInt32("sent_up_to", table: t),
            highestAck: try row.decodeUInt32("highest_ack", table: t), startedAt: try row.decode("started_at", table: t),
            progressAt: try row.decode("progress_at", table: t), timeoutAt: try row.decode("timeout_at", table: t),
            timeoutSeconds: try row.decode("timeout_seconds", table: t), windowResentAt: try row.decodeIfPresent("window_resent_at", table: t))
    }

    private static func incoming(_ row: Row) throws -> IncomingTransferState {
        let t = "transfer_incoming"
        let key: Data = try row.decode("user_key", table: t)
        let manifest1: Data? = try row.decodeIfPresent("manifest1", table: t)
        let manifest2: Data? = try row.decodeIfPresent("manifest2", table: t)
        return IncomingTransferState(
            transferID: try row.decode("transfer_id", table: t), primaryDeviceID: try row.decode("primary_device_id", table: t),
            channelID: try row.decode("channel_id", table: t), userKey: [UInt8](key), status: try status(row, t),
            failure: try row.decodeIfPresent("failure", table: t), nextIndex: try row.decodeUInt32("next_index", table: t),
            manifest1: manifest1.map { [UInt8]($0) }, manifest2: manifest2.map { [UInt8]($0) }, imported1: try row.decode("imported1", table: t),
            imported2: try row.decode("imported2", table: t), recordsDone: try row.decode("records_done", table: t),
            applied: try row.decode("applied", table: t), conflicts: try row.decode("conflicts", table: t), skipped: try row.decode("skipped", table: t),
            startedAt: try row.decode("started_at", table: t), progressAt: try row.decode("progress_at", table: t),
            ackAt: try row.decode("ack_at", table: t), ackSeconds: try row.decode("ack_seconds", table: t),
            idleAcks: try row.decode("idle_acks", table: t), duplicateAckAt: try row.decodeIfPresent("duplicate_ack_at", table: t))
    }
}

/// The transfer is no longer running in the store (the user cancelled it): its run stops.
package struct TransferStopped: Error, Sendable, Equatable {
    /// The error.
    package init() {}
}

/// Why a phase's trust part was not imported (nothing of it is applied).
package enum TransferImportRefusal: Error, Sendable, Equatable {
    /// A chunk the phase needs is not held.
    case missingChunk(UInt32)
    /// A record of another kind where the manifest counts trust records.
    case notTrust
    /// Fewer trust records than the manifest's `trust_count`.
    case countMismatch(found: Int, expected: Int)
}
