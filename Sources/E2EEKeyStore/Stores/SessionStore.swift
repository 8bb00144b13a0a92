import E2EECrypto
import Foundation
import GRDB

/// Pairwise sessions per remote device: one current, older ones archived (a message for an
/// archived session can still be decrypted) up to ``archiveLimit`` per device; and the ratchet
/// restarts asked and done per device (docs/spec/protocol.md §3.17, table `session_restarts`).
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

    /// Records that a message from the device was refused as too far ahead, asking for a
    /// ratchet restart (docs/spec/protocol.md §3.17). A request already waiting keeps its time.
    /// - Throws: GRDB's `DatabaseError`.
    public func requestRestart(_ request: SessionRestartRequest, _ db: Database) throws {
        try db.run(
            """
            INSERT INTO session_restarts (remote_user_id, remote_device_id, requested_at) VALUES (?, ?, ?)
            ON CONFLICT (remote_user_id, remote_device_id) DO UPDATE SET requested_at = COALESCE(requested_at, excluded.requested_at)
            """,
            [request.userID, request.deviceID, request.requestedAt.microseconds])
    }

    /// The device's restart row, if a restart was ever asked or done.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadRestart(userID: String, deviceID: String, _ db: Database) throws -> SessionRestart? {
        let t = "session_restarts"
        guard let row = try db.row("SELECT * FROM session_restarts WHERE remote_user_id = ? AND remote_device_id = ?", [userID, deviceID]) else {
            return nil
        }
        let requested: Int64? = try row.decodeIfPresent("requested_at", table: t)
        let restarted: Int64? = try row.decodeIfPresent("restarted_at", table: t)
        return SessionRestart(userID: userID, deviceID: deviceID, requestedAt: requested.map(StoreTime.init(microseconds:)),
                              restartedAt: restarted.map(StoreTime.init(microseconds:)))
    }

    /// Restarts the ratchet with the device (docs/spec/protocol.md §3.17): installs `state` as
    /// the current session, archiving the previous one (``installSession(userID:deviceID:state:id:at:_:)``),
    /// and records the restart at `time`, answering any request. Returns the new session's id.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func restartSession(userID: String, deviceID: String, state: SecretBytes, at time: StoreTime, _ db: Database) throws -> String {
        let id = try installSession(userID: userID, deviceID: deviceID, state: state, at: time, db)
        try db.run(
            """
            INSERT INTO session_restarts (remote_user_id, remote_device_id, requested_at, restarted_at) VALUES (?, ?, NULL, ?)
            ON CONFLICT (remote_user_id, remote_device_id) DO UPDATE SET requested_at = NULL, restarted_at = excluded.restarted_at
            """,
            [userID, deviceID, time.microseconds])
        return id
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
