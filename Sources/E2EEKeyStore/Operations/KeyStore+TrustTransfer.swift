import E2EECrypto
import GRDB

/// The trust part of a link transfer, both ends (docs/spec/protocol.md §11.3, §11.5): the
/// primary reads its decisions as trust records in one read, the new device applies a phase's
/// records in one write. The transport (manifests, chunks, acks) is not here.
extension KeyStore {
    /// The primary's trust records (§11.2), read in one transaction, in a fixed order so that
    /// the same store gives the same digest.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    package func trustSnapshot() async throws -> TrustSnapshot {
        try await read { db in
            var reader = TrustSnapshotReader(db)
            return try reader.read()
        }
    }

    /// Applies one phase's trust records in one transaction (§11.5): fills only what this
    /// device has not decided itself, replaces provisional pins, marks each decision taken as
    /// from `primaryDeviceID`. `ownUserKey` is our user's pinned key (from the grant), under
    /// which own devices' certificates must verify (`nil`: none is taken). `now` in unix seconds.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` without an account; GRDB's
    ///   `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)`` (nothing is applied).
    package func importTrust(_ records: [TrustRecord], from primaryDeviceID: String, ownUserKey: [UInt8]?, now: Int64) async throws -> TrustImportReport {
        try await write { db in
            guard let account = try db.row("SELECT user_id, device_id FROM account WHERE id = 1") else {
                throw KeyStoreError.missingRecord(.account, id: "1")
            }
            var importer = TrustImporter(db: db, ownUserID: try account.decode("user_id", table: "account"),
                                         ownDeviceID: try account.decode("device_id", table: "account"), ownUserKey: ownUserKey,
                                         source: primaryDeviceID, now: now)
            try importer.apply(records)
            return importer.report
        }
    }

    /// Marks the key standing of `userID` provisional: decided after the user skipped the
    /// transfer (§11.1), so that the next trust part replaces it.
    /// - Throws: GRDB's `DatabaseError`.
    package func markProvisionalPin(userID: String, at time: StoreTime) async throws {
        try await write { db in
            try db.run("INSERT OR REPLACE INTO provisional_pins (user_id, pinned_at) VALUES (?, ?)", [userID, time.microseconds])
        }
    }

    /// The primary's device id a decision was taken from (`subject` as ``TrustMarkSubject`` writes it; `nil`: not transferred).
    /// - Throws: GRDB's `DatabaseError`.
    package func transferMark(_ subject: String) async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT source_device_id FROM transfer_marks WHERE subject = ?", arguments: [subject]) }
    }
}
