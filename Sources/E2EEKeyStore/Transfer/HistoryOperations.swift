import E2EECrypto
import Foundation
import GRDB

/// The history part of a link transfer, both ends (docs/spec/protocol.md §11.7–§11.9): the
/// primary reads message records in batches under a snapshot mark and later the changes since
/// it; the new device imports records inside the transaction that commits their chunk. The
/// transport (manifests, chunks, acks, the sealed spool) is not here.
extension KeyStore {
    // MARK: Primary

    /// Phase 1 of a transfer's history: takes the snapshot mark of `transferID` (kept, across
    /// restarts, until ``closeHistorySnapshot(transferID:)``), then reads in one read
    /// transaction every message this device shows in `window` — decrypted `message` rows, its
    /// own included, whose payload reads as a §6.1 message, in channels not left — as message
    /// records, channel by channel (id order), each oldest first, handing them to `visit` in
    /// batches of `batchSize`: memory holds one batch. Over `budget` the oldest end is cut
    /// (``HistoryPartSummary/truncated``). Taking a mark again for the same transfer moves it.
    /// `visit` runs on the store's reader; what it throws ends the read and is rethrown.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError`` for a tampered row.
    @_spi(StoreInternals) public func produceHistorySnapshot(transferID: String, window: HistoryWindow, budget: HistoryBudget = HistoryBudget(),
                                        batchSize: Int = 256, now: StoreTime = .now(),
                                        visit: @escaping @Sendable ([TransferRecord]) throws -> Void) async throws -> HistoryPartSummary {
        let mark = try await write { db in try HistoryChangeLog.openMark(transferID: transferID, lowerBound: nil, at: now, db) }
        guard let lowerBound = window.lowerBound else {
            var summary = HistoryPartSummary()
            summary.mark = mark
            return summary
        }
        return try await read { [sealer] db in
            var reader = HistoryPartReader(db: db, sealer: sealer, batchSize: batchSize, visit: visit)
            try reader.readSnapshot(from: lowerBound, budget: budget)
            var summary = reader.summary
            summary.mark = mark
            return summary
        }
    }

    /// Phase 2 of a transfer's history: what changed in `window` since the mark of
    /// `transferID` — a `deleted` record for each message deleted since, a message record for
    /// each arrival and edit (the text as it is now) — oldest first, in batches, cut at the
    /// oldest end to `budget`. Read in one read transaction; the mark stays until closed.
    /// - Throws: ``KeyStoreError/invalidArgument(_:)`` when no mark of `transferID` is open;
    ///   GRDB's `DatabaseError`, ``KeyStoreError`` for a tampered row.
    @_spi(StoreInternals) public func produceHistoryChanges(transferID: String, window: HistoryWindow, budget: HistoryBudget = HistoryBudget(),
                                       batchSize: Int = 256,
                                       visit: @escaping @Sendable ([TransferRecord]) throws -> Void) async throws -> HistoryPartSummary {
        try await read { [sealer] db in
            guard let mark = try Int64.fetchOne(db, sql: "SELECT change_seq FROM history_marks WHERE transfer_id = ?", arguments: [transferID]) else {
                throw KeyStoreError.invalidArgument("no history mark open for transfer \(transferID)")
            }
            var reader = HistoryPartReader(db: db, sealer: sealer, batchSize: batchSize, visit: visit)
            guard let lowerBound = window.lowerBound else {
                var summary = reader.summary
                summary.mark = mark
                return summary
            }
            try reader.readChanges(after: mark, from: lowerBound, budget: budget)
            return reader.summary
        }
    }

    /// Ends the change log of `transferID` (the transfer ended, failed or was cancelled): its
    /// mark goes, and with it every logged change no open mark needs (all of them when none is
    /// left open, which stops the logging: ``HistoryChangeLog``).
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func closeHistorySnapshot(transferID: String) async throws {
        try await write { db in try HistoryChangeLog.closeMark(transferID: transferID, db) }
    }

    /// The transfers whose snapshot mark is open, with the change sequence of each.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func openHistoryMarks() async throws -> [String: Int64] {
        try await read { db in
            var marks: [String: Int64] = [:]
            for row in try db.rows("SELECT transfer_id, change_seq FROM history_marks") { marks[row[0]] = row[1] }
            return marks
        }
    }

    // MARK: New device

    /// Imports history records of `transferID` from the primary `primaryDeviceID` inside the
    /// caller's transaction, so that a chunk's commit and its import are one (docs/spec/protocol.md
    /// §11.9): message records become transferred rows, or fill rows this device could not
    /// read; `deleted` records erase only rows this transfer imported; trust records are
    /// ignored (counted). A record that repeats (a resend, phase 2 after phase 1) changes
    /// nothing twice: rows are keyed by (channel, server message id).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError`` (the caller's transaction then rolls back).
    @_spi(StoreInternals) public func importHistory(_ records: [TransferRecord], transferID: String, from primaryDeviceID: String,
                               _ db: Database) throws -> HistoryImportReport {
        var importer = HistoryImporter(db: db, store: self, transferID: transferID, source: primaryDeviceID)
        try importer.apply(records)
        return importer.report
    }

    /// ``importHistory(_:transferID:from:_:)`` in a transaction of its own.
    /// - Throws: as ``importHistory(_:transferID:from:_:)``; nothing is imported on failure.
    @_spi(StoreInternals) public func importHistory(_ records: [TransferRecord], transferID: String, from primaryDeviceID: String) async throws -> HistoryImportReport {
        try await write { [self] db in try importHistory(records, transferID: transferID, from: primaryDeviceID, db) }
    }

    /// For each of `messageIDs` that is a transferred row, the primary's device id it came from.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func transferredSources(messageIDs: [String]) async throws -> [String: String] {
        guard !messageIDs.isEmpty else { return [:] }
        return try await read { db in
            var sources: [String: String] = [:]
            // An index probe only when any row is transferred (the partial index is empty otherwise).
            guard try db.row(Self.anyTransferredSQL) != nil else { return sources }
            let marks = Array(repeating: "?", count: messageIDs.count).joined(separator: ", ")
            for row in try db.rows("""
                SELECT message_id, history_source_device_id FROM timeline
                WHERE message_id IN (\(marks)) AND history_transfer_id IS NOT NULL
                """, StatementArguments(messageIDs)) {
                sources[row[0]] = (row[1] as String?) ?? ""
            }
            return sources
        }
    }

    /// Whether any row is transferred: one probe of the partial index `timeline_transferred`.
    static let anyTransferredSQL = "SELECT 1 FROM timeline WHERE history_transfer_id IS NOT NULL LIMIT 1"

    /// The transferred texts this device replaced by decrypting the message itself, oldest
    /// first, with both payloads (``HistoryReplacement/differs`` says whether to show one).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError`` for a tampered value.
    @_spi(StoreInternals) public func historyReplacements() async throws -> [HistoryReplacement] {
        try await read { [sealer] db in
            try db.rows("""
                SELECT r.message_id, r.channel_id, r.transfer_id, r.source_device_id, r.transferred_plaintext, r.replaced_at, t.plaintext
                FROM history_replacements r JOIN timeline t ON t.message_id = r.message_id ORDER BY r.replaced_at, r.message_id
                """).map { row in
                let id: String = row[0]
                let t = TimelineStore.table
                return HistoryReplacement(
                    messageID: id, channelID: row[1], transferID: row[2], sourceDeviceID: row[3],
                    transferredPayload: try sealer.openIfPresent(row[4] as Data?, table: t, column: "plaintext", rowID: id),
                    decryptedPayload: try sealer.openIfPresent(row[6] as Data?, table: t, column: "plaintext", rowID: id),
                    replacedAt: StoreTime(microseconds: row[5]))
            }
        }
    }

    /// Forgets the replacements of `messageIDs` (shown to the user, or the same text).
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func forgetHistoryReplacements(messageIDs: [String]) async throws {
        try await write { db in
            for id in messageIDs { try db.run("DELETE FROM history_replacements WHERE message_id = ?", [id]) }
        }
    }
}
