import GRDB

extension KeyStore {
    /// Records that this account is no longer in `channelID` (it left, or the channel list no
    /// longer shows it). The departure point is the newest message this device had read there
    /// (anything later that waits for a sender key was not sent to it). A departure already
    /// recorded and not followed by a rejoin is kept.
    /// - Throws: GRDB's `DatabaseError`.
    package func recordDeparture(channelID: String) async throws {
        try await handOff.queuedWrite { [self] db in try recordDeparture(channelID: channelID, db) }
    }

    /// As ``recordDeparture(channelID:)``, inside a caller's transaction.
    /// - Throws: GRDB's `DatabaseError`.
    package func recordDeparture(channelID: String, _ db: Database) throws {
        let open = try db.count("SELECT COUNT(*) FROM departed_channels WHERE channel_id = ? AND rejoined_at IS NULL", [channelID])
        guard open == 0 else { return }
        let lastRead = try Int64.fetchOne(
            db, sql: "SELECT MAX(created_at) FROM timeline WHERE channel_id = ? AND state != 'pending_key'", arguments: [channelID]) ?? 0
        try db.run("INSERT OR REPLACE INTO departed_channels (channel_id, left_at, rejoined_at) VALUES (?, ?, NULL)", [channelID, lastRead])
    }

    /// Records that `channelID` is listed again at `time` (a departure without a rejoin gets one).
    /// - Throws: GRDB's `DatabaseError`.
    package func recordRejoin(channelID: String, at time: StoreTime, _ db: Database) throws {
        try db.run("UPDATE departed_channels SET rejoined_at = ? WHERE channel_id = ? AND rejoined_at IS NULL", [time.microseconds, channelID])
    }

    /// The pending group messages of departed channels: the queue is walked and each row's
    /// timeline row looked up by its key (`CROSS JOIN` keeps that order; SQLite would rather
    /// scan the whole timeline), on every re-drive.
    static let departedPendingSQL = """
        SELECT p.message_id, p.channel_id FROM pending_ciphertexts p
        CROSS JOIN timeline t ON t.message_id = p.message_id
        JOIN departed_channels d ON d.channel_id = p.channel_id
        WHERE t.state = 'pending_key' AND p.waiting_for LIKE 'sender_key:%' AND t.created_at > d.left_at
          AND (d.rejoined_at IS NULL OR t.created_at < d.rejoined_at)
        ORDER BY t.created_at, t.message_id
        """

    /// Turns every pending group message sent while this device was out of its channel (after
    /// its departure point, before a rejoin) into an undecryptable row with `reason`: it leaves
    /// the pending queue (``pendingCount()`` and a re-drive of everything skip it), but its
    /// ciphertext is kept, so the sender key it names still opens it should it ever arrive
    /// (``pendingReceives(waitingFor:after:limit:)`` with that key). Returns the rows settled.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func settleDepartedPending(reason: String) async throws -> [SettledPendingRow] {
        try await handOff.queuedWrite { [self] db in
            try db.rows(Self.departedPendingSQL).compactMap { row in
                try settlePendingRow(id: try row.decode("message_id", table: PendingCiphertextStore.table),
                                     channelID: try row.decode("channel_id", table: PendingCiphertextStore.table), reason: reason, db)
            }
        }
    }
}
