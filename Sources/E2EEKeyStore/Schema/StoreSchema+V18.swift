import GRDB

extension StoreSchema {
    /// `v18`: the ratchet restarts of docs/spec/protocol.md §3.17, one row per remote device.
    ///
    /// - `requested_at`: when a message from the device refused as too far ahead first asked
    ///   for a restart that has not happened yet (`NULL`: none asked). Written in the
    ///   transaction that stores the refusal.
    /// - `restarted_at`: when this device last restarted the ratchet with the device (a fresh
    ///   X3DH at a send, the old session archived), on this device's own clock; a request is
    ///   honoured at most once per `ProtocolLimits.minRatchetRestartIntervalSeconds`
    ///   after it. Written in the transaction that installs the new session.
    ///
    /// Nothing here is secret: ids and times.
    static func recordSessionRestarts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE session_restarts (
                remote_user_id TEXT NOT NULL,
                remote_device_id TEXT NOT NULL,
                requested_at INTEGER,
                restarted_at INTEGER,
                PRIMARY KEY (remote_user_id, remote_device_id),
                CHECK (requested_at IS NOT NULL OR restarted_at IS NOT NULL)
            );
            """)
    }
}
