import Foundation
import GRDB

/// Our own user's key (schema `v20`, docs/spec/protocol.md §3 "State"): the role, the mirror of
/// the primary file and the legacy own devices. Public data only, stored in clear.
package struct OwnUserKeyStore: Sendable {
    private static let table = "own_user_key"

    /// A store.
    public init() {}

    /// The record, or `nil`: the account has no key.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func load(_ db: Database) throws -> OwnUserKeyRecord? {
        guard let row = try db.row("SELECT * FROM own_user_key WHERE id = 1") else { return nil }
        let t = Self.table
        let stopped: String? = try row.decodeIfPresent("issuing_stopped", table: t)
        let logCount: Int64 = try row.decode("log_count", table: t)
        let counter: Int64 = try row.decode("trust_counter", table: t)
        return OwnUserKeyRecord(
            role: try row.decodeEnum("role", table: t), userKey: try bytes(row, "user_key"),
            primaryDeviceID: try row.decodeIfPresent("primary_device_id", table: t), certificate: try bytes(row, "certificate"),
            fileID: try bytes(row, "file_id"), epoch: try row.decodeUInt32("epoch", table: t),
            logCount: UInt64(clamping: logCount), trustCounter: UInt64(clamping: counter),
            issuingStopped: try stopped.map { text in
                guard let stop = OwnUserKeyRecord.IssuingStop(rawValue: text) else { throw KeyStoreError.corruptColumn(table: t, column: "issuing_stopped") }
                return stop
            },
            createdAt: try row.decode("created_at", table: t))
    }

    /// Stores the record, replacing any. The trust counter of the same primary file is never
    /// lowered: a record read before a trust decision raised it (``raiseTrustCounter(_:)``)
    /// keeps the raised value (docs/spec/protocol.md §11.3).
    /// - Throws: GRDB's `DatabaseError` (a record breaking the table's checks).
    public func store(_ record: OwnUserKeyRecord, _ db: Database) throws {
        var record = record
        if let fileID = record.fileID, let row = try Row.fetchOne(db, sql: "SELECT file_id, trust_counter FROM own_user_key WHERE id = 1"),
           let stored: Data = row["file_id"], stored == Data(fileID), let counter: Int64 = row["trust_counter"] {
            record.trustCounter = max(record.trustCounter, UInt64(clamping: counter))
        }
        try db.run("""
            INSERT OR REPLACE INTO own_user_key (id, role, user_key, primary_device_id, certificate, file_id, epoch, log_count,
                trust_counter, issuing_stopped, created_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [record.role.rawValue, record.userKey.map { Data($0) }, record.primaryDeviceID, record.certificate.map { Data($0) },
                  record.fileID.map { Data($0) }, Int64(record.epoch), Int64(clamping: record.logCount), Int64(clamping: record.trustCounter),
                  record.issuingStopped?.rawValue, record.createdAt])
    }

    /// The legacy own devices, by device id.
    /// - Throws: as ``load(_:)``.
    public func loadLegacyDevices(_ db: Database) throws -> [LegacyOwnDevice] {
        try db.rows("SELECT device_id, lapses_at FROM legacy_own_devices ORDER BY device_id").map { row in
            LegacyOwnDevice(deviceID: try row.decode("device_id", table: "legacy_own_devices"),
                            lapsesAt: try row.decode("lapses_at", table: "legacy_own_devices"))
        }
    }

    /// Adds legacy own devices (a device already listed keeps its lapse date).
    /// - Throws: GRDB's `DatabaseError`.
    public func addLegacyDevices(_ devices: [LegacyOwnDevice], _ db: Database) throws {
        for device in devices {
            try db.run("INSERT OR IGNORE INTO legacy_own_devices (device_id, lapses_at) VALUES (?, ?)", [device.deviceID, device.lapsesAt])
        }
    }

    /// Removes legacy own devices (their 30 days ran out, or they were linked or removed).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeLegacyDevices(_ deviceIDs: [String], _ db: Database) throws {
        for device in deviceIDs { try db.run("DELETE FROM legacy_own_devices WHERE device_id = ?", [device]) }
    }

    /// The highest epoch this device saw under our key in our own listing (0: none yet).
    /// - Throws: GRDB's `DatabaseError`.
    public func highestEpoch(_ db: Database) throws -> UInt32 {
        UInt32(clamping: try Int64.fetchOne(db, sql: "SELECT highest_epoch FROM own_user_key WHERE id = 1") ?? 0)
    }

    /// Raises the highest epoch seen to `epoch` (never lowers it).
    /// - Throws: GRDB's `DatabaseError`.
    public func raiseHighestEpoch(to epoch: UInt32, _ db: Database) throws {
        try db.run("UPDATE own_user_key SET highest_epoch = max(highest_epoch, ?) WHERE id = 1", [Int64(epoch)])
    }

    /// When this device was told once to link (`linkSuggested`, docs/spec/protocol.md §10.25),
    /// if it was.
    /// - Throws: GRDB's `DatabaseError`.
    public func linkSuggestedAt(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT link_suggested_at FROM store_metadata WHERE id = 1")
    }

    /// Records that this device was told to link, at `time` (unix seconds).
    /// - Throws: GRDB's `DatabaseError`.
    public func markLinkSuggested(at time: Int64, _ db: Database) throws {
        try db.run("UPDATE store_metadata SET link_suggested_at = ? WHERE id = 1", [time])
    }

    /// Raises the mirror's trust counter by one on a primary (a trust decision was made, its
    /// file raised first, docs/spec/protocol.md §11.3); nothing on any other device.
    /// - Throws: GRDB's `DatabaseError`.
    public func raiseTrustCounter(_ db: Database) throws {
        try db.run("UPDATE own_user_key SET trust_counter = trust_counter + 1 WHERE id = 1 AND role = 'primary'")
    }

    /// Raises the mirror's trust counter to `counter` (the user confirmed the trust state this
    /// store shows, which equalises it with the file's); never lowers it.
    /// - Throws: GRDB's `DatabaseError`.
    public func raiseTrustCounter(to counter: UInt64, _ db: Database) throws {
        try db.run("UPDATE own_user_key SET trust_counter = max(trust_counter, ?) WHERE id = 1", [Int64(clamping: counter)])
    }

    private func bytes(_ row: Row, _ column: String) throws -> [UInt8]? {
        let data: Data? = try row.decodeIfPresent(column, table: Self.table)
        return data.map { [UInt8]($0) }
    }
}
