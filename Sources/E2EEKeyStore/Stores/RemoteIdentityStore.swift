import Foundation
import GRDB

/// Identity blobs pinned per remote (user, device) on first use, with their verification state
/// and every change seen. Identity blobs are public and stored in the clear.
package struct RemoteIdentityStore: Sendable {
    static let table = "remote_identities"

    /// A store.
    public init() {}

    /// The pin for the device.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadIdentity(userID: String, deviceID: String, _ db: Database) throws -> RemoteIdentity? {
        try db.row("SELECT * FROM remote_identities WHERE user_id = ? AND device_id = ?", [userID, deviceID]).map(decode)
    }

    /// Every pinned device of `userID`, by device id.
    /// - Throws: as ``loadIdentity(userID:deviceID:_:)``.
    public func loadIdentities(userID: String, _ db: Database) throws -> [RemoteIdentity] {
        try db.rows("SELECT * FROM remote_identities WHERE user_id = ? ORDER BY device_id", [userID]).map(decode)
    }

    /// Pins the blob on first use, confirms a match, or records a change (keeping the old pin).
    /// - Throws: as ``loadIdentity(userID:deviceID:_:)``.
    public func recordIdentity(userID: String, deviceID: String, identityBlob: [UInt8], at time: StoreTime, _ db: Database) throws -> IdentityRecordResult {
        guard let pinned = try loadIdentity(userID: userID, deviceID: deviceID, db) else {
            try db.run("INSERT INTO remote_identities (user_id, device_id, identity_blob, first_seen_at, verification) VALUES (?, ?, ?, ?, 'unverified')",
                       [userID, deviceID, Data(identityBlob), time.microseconds])
            return .pinned
        }
        if pinned.identityBlob == identityBlob { return .matches }
        if let known = try db.row(
            "SELECT id, previous_blob, seen_at FROM identity_changes WHERE user_id = ? AND device_id = ? AND new_blob = ? AND accepted = 0 ORDER BY id LIMIT 1",
            [userID, deviceID, Data(identityBlob)]) {
            let t = "identity_changes"
            let previous: Data = try known.decode("previous_blob", table: t)
            return .changeAlreadyRecorded(IdentityChange(
                id: try known.decode("id", table: t), userID: userID, deviceID: deviceID, previousBlob: [UInt8](previous),
                newBlob: identityBlob, seenAt: StoreTime(microseconds: try known.decode("seen_at", table: t)), accepted: false))
        }
        try db.run("INSERT INTO identity_changes (user_id, device_id, previous_blob, new_blob, seen_at) VALUES (?, ?, ?, ?, ?)",
                   [userID, deviceID, Data(pinned.identityBlob), Data(identityBlob), time.microseconds])
        return .changed(IdentityChange(id: db.lastInsertedRowID, userID: userID, deviceID: deviceID, previousBlob: pinned.identityBlob,
                                       newBlob: identityBlob, seenAt: time, accepted: false))
    }

    /// Whether this device knew `userID` before `time` — our own user, or one with a device other
    /// than `deviceID` pinned earlier: a device pinned for such a user is news ("a new device of
    /// alice"), the devices of a user met for the first time are not (a new login meets every
    /// contact at once).
    /// - Throws: GRDB's `DatabaseError`.
    public func knewUser(_ userID: String, besides deviceID: String? = nil, before time: StoreTime, _ db: Database) throws -> Bool {
        try db.row("""
            SELECT 1 WHERE ? = (SELECT user_id FROM account WHERE id = 1)
                OR EXISTS (SELECT 1 FROM remote_identities WHERE user_id = ? AND device_id IS NOT ? AND first_seen_at < ?)
            """, [userID, userID, deviceID, time.microseconds]) != nil
    }

    /// The user accepts a recorded change: the pin moves to the new blob, unverified.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown change id.
    public func acceptIdentityChange(id: Int64, at time: StoreTime, _ db: Database) throws {
        guard let row = try db.row("SELECT user_id, device_id, new_blob FROM identity_changes WHERE id = ?", [id]) else {
            throw KeyStoreError.missingRecord(.remoteIdentity, id: String(id))
        }
        let t = "identity_changes"
        let blob: Data = try row.decode("new_blob", table: t)
        let userID: String = try row.decode("user_id", table: t)
        let deviceID: String = try row.decode("device_id", table: t)
        try db.run("UPDATE remote_identities SET identity_blob = ?, verification = 'unverified', first_seen_at = ? WHERE user_id = ? AND device_id = ?",
                   [blob, time.microseconds, userID, deviceID])
        try db.run("UPDATE identity_changes SET accepted = 1 WHERE id = ?", [id])
    }

    /// Sets the verification state of a pinned device.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` when the device is not pinned.
    public func setVerification(_ state: VerificationState, userID: String, deviceID: String, _ db: Database) throws {
        try db.run("UPDATE remote_identities SET verification = ? WHERE user_id = ? AND device_id = ?", [state.rawValue, userID, deviceID])
        guard db.changesCount == 1 else { throw KeyStoreError.missingRecord(.remoteIdentity, id: "\(userID)/\(deviceID)") }
    }

    /// The changes recorded for `userID`, oldest first.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadIdentityChanges(userID: String, _ db: Database) throws -> [IdentityChange] {
        let t = "identity_changes"
        return try db.rows("SELECT * FROM identity_changes WHERE user_id = ? ORDER BY id", [userID]).map { row in
            let previous: Data = try row.decode("previous_blob", table: t)
            let new: Data = try row.decode("new_blob", table: t)
            let accepted: Int64 = try row.decode("accepted", table: t)
            return IdentityChange(id: try row.decode("id", table: t), userID: try row.decode("user_id", table: t),
                                  deviceID: try row.decode("device_id", table: t), previousBlob: [UInt8](previous), newBlob: [UInt8](new),
                                  seenAt: StoreTime(microseconds: try row.decode("seen_at", table: t)), accepted: accepted == 1)
        }
    }

    private func decode(_ row: Row) throws -> RemoteIdentity {
        let t = Self.table
        let blob: Data = try row.decode("identity_blob", table: t)
        return RemoteIdentity(userID: try row.decode("user_id", table: t), deviceID: try row.decode("device_id", table: t),
                              identityBlob: [UInt8](blob), firstSeenAt: StoreTime(microseconds: try row.decode("first_seen_at", table: t)),
                              verification: try row.decodeEnum("verification", table: t))
    }
}
