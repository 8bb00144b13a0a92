import E2EECrypto
import Foundation
import GRDB

/// The history part of a link transfer joined to its transport (docs/spec/protocol.md §11.3,
/// §11.7–§11.9): the primary spools a phase's trust records and then its message records in one
/// transaction, so the snapshot, its mark and its counts agree; the new device imports a phase's
/// message records once the phase's count and digest matched.
extension KeyStore {
    /// What a spooled phase holds, with whether its history was cut at the oldest end.
    package struct SpooledPhase: Sendable, Equatable {
        /// Counts and digest of the phase.
        package var summary: TransferSpoolWriter.Summary
        /// Whether the history part was cut to fit the transfer's bounds.
        package var truncated: Bool
    }

    /// Writes phase 1 of `transferID` to the sealed spool in one transaction: `trust` first,
    /// then — unless `window` is ``HistoryWindow/nothing`` — the history snapshot taken now
    /// (its mark and window kept for phase 2, until ``closeHistorySnapshot(transferID:)``), cut
    /// at the oldest end to what the transfer's bounds leave after the trust part.
    /// - Throws: ``TransferSpoolWriter/Refusal``, GRDB's `DatabaseError`, ``KeyStoreError`` for a tampered row.
    package func spoolSnapshot(transferID: String, trust: [TrustRecord], window: HistoryWindow, recordsPerChunk: Int? = nil,
                               now: StoreTime = .now()) async throws -> SpooledPhase {
        try await write { [sealer] db in
            var writer = try TransferSpoolWriter(db: db, sealer: sealer, transferID: transferID, phase: 1, recordsPerChunk: recordsPerChunk)
            let used = try Self.appendTrust(trust, to: &writer)
            var truncated = false
            if let lowerBound = window.lowerBound {
                _ = try HistoryChangeLog.openMark(transferID: transferID, lowerBound: lowerBound, at: now, db)
                var reader = HistoryPartReader(db: db, sealer: sealer, batchSize: 256) { batch in
                    for record in batch { try writer.append(record) }
                }
                try reader.readSnapshot(from: lowerBound, budget: Self.budget(after: used))
                truncated = reader.summary.truncated
            }
            return SpooledPhase(summary: try writer.finish(), truncated: truncated)
        }
    }

    /// Writes phase 2 of `transferID` in one transaction: the trust records that changed since
    /// the snapshot, then — when phase 1 carried history — the deletions, edits and arrivals
    /// since its mark, within its window.
    /// - Throws: as ``spoolSnapshot(transferID:trust:window:recordsPerChunk:now:)``.
    package func spoolChanges(transferID: String, trust: [TrustRecord], recordsPerChunk: Int? = nil) async throws -> SpooledPhase {
        try await write { [sealer] db in
            var writer = try TransferSpoolWriter(db: db, sealer: sealer, transferID: transferID, phase: 2, recordsPerChunk: recordsPerChunk)
            let used = try Self.appendTrust(trust, to: &writer)
            var truncated = false
            if let row = try db.row("SELECT change_seq, lower_bound FROM history_marks WHERE transfer_id = ?", [transferID]),
               let lowerBound: Int64 = row["lower_bound"] {
                let mark: Int64 = row["change_seq"]
                var reader = HistoryPartReader(db: db, sealer: sealer, batchSize: 256) { batch in
                    for record in batch { try writer.append(record) }
                }
                try reader.readChanges(after: mark, from: lowerBound, budget: Self.budget(after: used))
                truncated = reader.summary.truncated
            }
            return SpooledPhase(summary: try writer.finish(), truncated: truncated)
        }
    }

    /// On the new device: imports the message and deleted records of the held chunk `index` of
    /// `transferID` (trust records are the trust part's), in one transaction; the rules are
    /// ``importHistory(_:transferID:from:_:)``'s, so a chunk imported again changes nothing.
    /// - Throws: ``TransferImportRefusal/missingChunk(_:)``, GRDB's `DatabaseError`, sealing errors.
    package func importHeldHistory(transferID: String, index: UInt32, from primaryDeviceID: String) async throws -> HistoryImportReport {
        try await write { [self, sealer] db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT records FROM transfer_received WHERE transfer_id = ? AND idx = ?",
                                                 arguments: [transferID, index]) else { throw TransferImportRefusal.missingChunk(index) }
            var decoder = TransferRecordDecoder(records: try sealer.open(sealed, table: "transfer_received", column: "records",
                                                                         rowID: "\(transferID)/\(index)"))
            var records: [TransferRecord] = []
            while let record = try decoder.next() {
                if case .trust = record { continue }
                records.append(record)
            }
            return try importHistory(records, transferID: transferID, from: primaryDeviceID, db)
        }
    }

    private static func appendTrust(_ trust: [TrustRecord], to writer: inout TransferSpoolWriter) throws -> (bytes: Int, records: Int) {
        var bytes = 0
        for record in trust {
            let whole = TransferRecord.trust(record)
            bytes += whole.encoded().count
            try writer.append(whole)
        }
        return (bytes, trust.count)
    }

    private static func budget(after used: (bytes: Int, records: Int)) -> HistoryBudget {
        HistoryBudget(bytes: max(0, HistoryBudget.maxTransferBytes - used.bytes), records: max(0, HistoryBudget.maxTransferRecords - used.records))
    }
}
