import E2EECrypto
import Foundation
import GRDB

/// Pairwise sessions per remote device: one current, older ones archived (a message for an
/// archived session can still be decrypted) up to ``archiveLimit`` per device.
package struct SessionStore: Sendable {
    static let table = "sessions"
    /// Archived sessions kept per remote device (libsignal keeps 40).
    public static let archiveLimit = 40
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// The device's current session.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadCurrentSession(userID: String, deviceID: String, _ db: Database) throws -> StoredSession? {
        try db.row("SELECT * FROM sessions WHERE remote_user_id = ? AND remote_device_id = ? AND is_current = 1", [userID, deviceID]).map(decode)
    }

    /// The device's sessions, current first, then archived ones newest first.
    /// - Throws: as ``loadCurrentSession(userID:deviceID:_:)``.
    public func loadSessions(userID: String, deviceID: String, _ db: Database) throws -> [StoredSession] {
        try db.rows(
            "SELECT * FROM sessions WHERE remote_user_id = ? AND remote_device_id = ? ORDER BY is_current DESC, updated_at DESC, id",
            [userID, deviceID]
        ).map(decode)
    }

    /// Installs a new current session for the device, archiving the previous one and trimming
    /// the archive to ``archiveLimit``. Returns the new session's id.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func installSession(userID: String, deviceID: String, state: SecretBytes, id: String = UUID().uuidString.lowercased(), at time: StoreTime, _ db: Database) throws -> String {
        try db.run("UPDATE sessions SET is_current = 0 WHERE remote_user_id = ? AND remote_device_id = ? AND is_current = 1", [userID, deviceID])
        try db.run(
            "INSERT INTO sessions (id, remote_user_id, remote_device_id, is_current, state, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?)",
            [id, userID, deviceID, try sealer.seal(state, table: Self.table, column: "state", rowID: id), time.microseconds, time.microseconds]
        )
        try db.run(
            """
            DELETE FROM sessions WHERE id IN (
                SELECT id FROM sessions WHERE remote_user_id = ? AND remote_device_id = ? AND is_current = 0
                ORDER BY updated_at DESC, id LIMIT -1 OFFSET ?)
            """,
            [userID, deviceID, Self.archiveLimit]
        )
        return id
    }

    /// Stores a device's sessions after an encryption or a decryption: the device's current row
    /// is archived, then each named state is inserted or updated, current first
    /// (`updated_at` keeps their most-recently-used order, from `time` down).
    /// - Throws: GRDB's `DatabaseError`.
    public func storeUpdate(_ update: SessionUpdate, at time: StoreTime, _ db: Database) throws {
        try db.run("UPDATE sessions SET is_current = 0 WHERE remote_user_id = ? AND remote_device_id = ? AND is_current = 1",
                   [update.userID, update.deviceID])
        for (rank, entry) in update.states.enumerated() {
            let updated = time.microseconds - Int64(rank)
            try db.run(
                """
                INSERT INTO sessions (id, remote_user_id, remote_device_id, is_current, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET is_current = excluded.is_current, state = excluded.state, updated_at = excluded.updated_at
                """,
                [entry.sessionID, update.userID, update.deviceID, entry.isCurrent ? 1 : 0,
                 try sealer.seal(entry.state, table: Self.table, column: "state", rowID: entry.sessionID), updated, updated])
        }
    }

    /// Whether a session row with `id` exists.
    /// - Throws: GRDB's `DatabaseError`.
    public func containsSession(id: String, _ db: Database) throws -> Bool {
        try db.count("SELECT COUNT(*) FROM sessions WHERE id = ?", [id]) > 0
    }

    /// Removes every session with the device (for instance when the device is gone).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeSessions(userID: String, deviceID: String, _ db: Database) throws {
        try db.run("DELETE FROM sessions WHERE remote_user_id = ? AND remote_device_id = ?", [userID, deviceID])
    }

    private func decode(_ row: Row) throws -> StoredSession {
        let t = Self.table
        let id: String = try row.decode("id", table: t)
        let isCurrent: Int64 = try row.decode("is_current", table: t)
        return StoredSession(
            id: id, remoteUserID: try row.decode("remote_user_id", table: t), remoteDeviceID: try row.decode("remote_device_id", table: t),
            isCurrent: isCurrent == 1,
            state: try sealer.open(try row.decode("state", table: t), table: t, column: "state", rowID: id),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)),
            updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t))
        )
    }
}
