import E2EECrypto
import Foundation
import GRDB

/// Writes one phase of a transfer to the sealed spool (docs/spec/protocol.md §11.3), inside the
/// caller's write transaction: records are appended in order — trust records first, then any
/// other kind — and packed, whole, into chunk-sized runs, each sealed under the store key and
/// stored as it fills. Only one run and one record are ever held, so a snapshot of a million
/// records costs the memory of one chunk. ``finish()`` gives the phase's counts and digest.
package struct TransferSpoolWriter {
    /// What a finished phase holds.
    package struct Summary: Sendable, Equatable {
        /// How many records, of which ``trustCount`` trust records (first).
        package var recordCount: UInt32
        /// How many trust records.
        package var trustCount: UInt32
        /// How many chunks.
        package var chunkCount: UInt32
        /// Total bytes of the records.
        package var byteCount: Int
        /// SHA-256 over the records, each whole, in order.
        package var digest: [UInt8]
    }

    /// Why an append was refused.
    package enum Refusal: Error, Sendable, Equatable {
        /// A trust record after a record of another kind.
        case trustAfterOtherKinds
        /// The phase would pass the transfer's bounds (records or bytes).
        case tooLarge
    }

    /// Room for records in one chunk: the chunk plaintext's limit less its head (type, kind,
    /// transfer id, index).
    package static let recordRoom = ProtocolLimits.maxLinkChunkPlaintextBytes - 22

    static let table = "transfer_spool"

    private let db: Database
    private let sealer: Sealer
    private let transferID: String
    private let phase: Int
    private var run: [SecretBytes] = []
    private var runBytes = 0
    private var runRecords = 0
    private var digest = TransferDigest()
    private var summary: Summary
    private var sawOtherKind = false
    private let recordsPerChunk: Int

    init(db: Database, sealer: Sealer, transferID: String, phase: Int, recordsPerChunk: Int? = nil) throws {
        self.recordsPerChunk = max(1, recordsPerChunk ?? Int.max)
        self.db = db
        self.sealer = sealer
        self.transferID = transferID
        self.phase = phase
        self.summary = Summary(recordCount: 0, trustCount: 0, chunkCount: 0, byteCount: 0, digest: [])
        try db.run("DELETE FROM transfer_spool WHERE transfer_id = ? AND phase = ?", [transferID, phase])
    }

    /// Appends `record` after those already appended.
    /// - Throws: ``Refusal``, GRDB's `DatabaseError`.
    package mutating func append(_ record: TransferRecord) throws {
        if case .trust = record {
            guard !sawOtherKind else { throw Refusal.trustAfterOtherKinds }
            summary.trustCount += 1
        } else {
            sawOtherKind = true
        }
        let bytes = record.encoded()
        guard Int(summary.recordCount) < ProtocolLimits.maxTransferRecords,
              summary.byteCount + bytes.count <= ProtocolLimits.maxTransferBytes else { throw Refusal.tooLarge }
        digest.add(wholeRecord: bytes)
        if runBytes + bytes.count > Self.recordRoom || runRecords >= recordsPerChunk, !run.isEmpty { try flush() }
        run.append(bytes)
        runBytes += bytes.count
        runRecords += 1
        summary.recordCount += 1
        summary.byteCount += bytes.count
    }

    /// Stores the last run and returns the phase's figures.
    /// - Throws: GRDB's `DatabaseError`.
    package mutating func finish() throws -> Summary {
        if !run.isEmpty { try flush() }
        summary.digest = digest.digest
        return summary
    }

    private mutating func flush() throws {
        let joined = Self.join(run)
        let chunk = Int(summary.chunkCount)
        let sealed = try sealer.seal(joined, table: Self.table, column: "records", rowID: Self.rowID(transferID, phase, chunk))
        try db.run("INSERT INTO transfer_spool (transfer_id, phase, chunk, record_count, records) VALUES (?, ?, ?, ?, ?)",
                   [transferID, phase, chunk, runRecords, sealed])
        summary.chunkCount += 1
        run = []
        runBytes = 0
        runRecords = 0
    }

    static func rowID(_ transferID: String, _ phase: Int, _ chunk: Int) -> String { "\(transferID)/\(phase)/\(chunk)" }

    /// `parts` one after the other, in one wiped buffer.
    static func join(_ parts: [SecretBytes]) -> SecretBytes {
        SecretBytes(count: parts.reduce(0) { $0 + $1.count }) { out in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + source.count)]).copyMemory(from: source)
                }
                offset += part.count
            }
        }
    }
}
