import E2EECrypto
import Synchronization
@_spi(StoreInternals) import E2EEKeyStore

/// Carries an old store's trust decisions and history into a new store of the same user on
/// the same installation (docs/spec/protocol.md §10.15): the records a link transfer would send
/// (§11.2, §11.7), read from one store and applied to the other by the transfer's own reader
/// and importers, with nothing posted. Both imports fill only what the new store has not
/// decided or read itself, so running it again changes nothing twice.
struct LocalCarryOver: Sendable {
    /// What was carried.
    struct Report: Sendable, Equatable {
        /// Trust decisions applied.
        var trustApplied: Int
        /// Messages inserted or filled.
        var messages: Int
    }

    /// Messages imported per transaction.
    static let batchSize = 512

    let from: KeyStore
    let to: KeyStore
    /// The old device's id (lower-case text): the source every carried decision and message is
    /// labelled with, and the device left out of the carried own devices (it is being removed).
    let oldDeviceID: String
    /// Our user's key (the file's): own devices' certificates must verify under it.
    let userKey: [UInt8]
    /// Unix seconds (§10.19's clock).
    let now: Int64

    /// Carries the trust part, then the whole history (cut at its oldest end to the
    /// transfer's bounds, as a transfer would be).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError`` (nothing of the failing part is applied).
    func run() async throws -> Report {
        let snapshot = try await from.trustSnapshot()
        let old = oldDeviceID
        let records = snapshot.records.filter { record in
            if case .ownDevice(let device, _, _) = record { return device.text != old }
            return true
        }
        let trust = try await to.importTrust(records, from: oldDeviceID, ownUserKey: userKey, now: now)

        let transferID = "take-over-" + oldDeviceID
        let collected = Collected()
        _ = try await from.produceHistorySnapshot(transferID: transferID, window: .everything) { batch in
            collected.records.withLock { $0.append(contentsOf: batch) }
        }
        try await from.closeHistorySnapshot(transferID: transferID)
        let history = collected.records.withLock { records in
            defer { records.removeAll() }
            return records
        }
        var messages = 0
        var start = history.startIndex
        while start < history.endIndex {
            let end = min(start + Self.batchSize, history.endIndex)
            let report = try await to.importHistory(Array(history[start..<end]), transferID: transferID, from: oldDeviceID)
            messages += report.inserted + report.filled
            start = end
        }
        return Report(trustApplied: trust.applied, messages: messages)
    }
}

/// The history records read from the old store, handed from its reader to the import.
private final class Collected: Sendable {
    let records = Mutex<[TransferRecord]>([])
}
