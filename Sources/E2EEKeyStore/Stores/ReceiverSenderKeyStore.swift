import E2EECrypto
import Foundation
import GRDB

/// Receiving sender-key states per (channel, sender device, key id), with their skipped message
/// keys (removed with the state by a foreign-key cascade).
package struct ReceiverSenderKeyStore: Sendable {
    static let table = "receiver_sender_keys"
    static let skippedTable = "skipped_sender_keys"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// The state at `address`.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadReceiverSenderKey(_ address: SenderKeyAddress, _ db: Database) throws -> ReceiverSenderKey? {
        guard let row = try db.row("SELECT * FROM receiver_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ?",
                                   [address.channelID, address.senderDeviceID, Int64(address.keyID)]) else { return nil }
        let t = Self.table
        return ReceiverSenderKey(
            address: address, senderUserID: try row.decode("sender_user_id", table: t),
            state: try sealer.open(try row.decode("state", table: t), table: t, column: "state", rowID: address.description),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)),
            updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t))
        )
    }

    /// Inserts or replaces the state at `key.address` (its skipped keys are kept on replace).
    /// - Throws: GRDB's `DatabaseError`.
    public func storeReceiverSenderKey(_ key: ReceiverSenderKey, _ db: Database) throws {
        let a = key.address
        try db.run(
            """
            INSERT INTO receiver_sender_keys (channel_id, sender_user_id, sender_device_id, key_id, state, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (channel_id, sender_device_id, key_id) DO UPDATE SET
                state = excluded.state, updated_at = excluded.updated_at, sender_user_id = excluded.sender_user_id
            """,
            [a.channelID, key.senderUserID, a.senderDeviceID, Int64(a.keyID),
             try sealer.seal(key.state, table: Self.table, column: "state", rowID: a.description),
             key.createdAt.microseconds, key.updatedAt.microseconds]
        )
    }

    /// Removes the state and its skipped keys.
    /// - Throws: GRDB's `DatabaseError`.
    public func removeReceiverSenderKey(_ address: SenderKeyAddress, _ db: Database) throws {
        try db.run("DELETE FROM receiver_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ?",
                   [address.channelID, address.senderDeviceID, Int64(address.keyID)])
    }

    /// Removes states not advanced since `cutoff` (with their skipped keys) for which a later
    /// installed state of another `key_id` of the same (channel, sender device) exists (§4: the
    /// newest state is never wiped); returns how many.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func removeReceiverSenderKeys(notUpdatedSince cutoff: StoreTime, _ db: Database) throws -> Int {
        try db.run("""
            DELETE FROM receiver_sender_keys AS r WHERE updated_at < ?
              AND EXISTS (SELECT 1 FROM receiver_sender_keys o
                          WHERE o.channel_id = r.channel_id AND o.sender_device_id = r.sender_device_id
                            AND (o.created_at, o.key_id) > (r.created_at, r.key_id))
            """, [cutoff.microseconds])
        return db.changesCount
    }

    /// The skipped message key for `iteration`, if kept.
    /// - Throws: ``KeyStoreError`` for a tampered value, GRDB's `DatabaseError`.
    public func loadSkippedKey(_ address: SenderKeyAddress, iteration: UInt32, _ db: Database) throws -> SkippedSenderKey? {
        guard let row = try db.row(
            "SELECT message_key FROM skipped_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ? AND iteration = ?",
            [address.channelID, address.senderDeviceID, Int64(address.keyID), Int64(iteration)]) else { return nil }
        let key = try sealer.open(try row.decode("message_key", table: Self.skippedTable), table: Self.skippedTable, column: "message_key",
                                  rowID: Self.skippedRowID(address, iteration))
        return SkippedSenderKey(address: address, iteration: iteration, messageKey: key)
    }

    /// The iterations whose keys are kept for `address`, ascending.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func skippedIterations(_ address: SenderKeyAddress, _ db: Database) throws -> [UInt32] {
        try db.rows("SELECT iteration FROM skipped_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ? ORDER BY iteration",
                    [address.channelID, address.senderDeviceID, Int64(address.keyID)])
            .map { try $0.decodeUInt32("iteration", table: Self.skippedTable) }
    }

    /// Stores skipped keys (their state must exist).
    /// - Throws: GRDB's `DatabaseError` (a foreign-key failure when the state is missing).
    public func storeSkippedKeys(_ keys: [SkippedSenderKey], at time: StoreTime, _ db: Database) throws {
        for key in keys {
            let a = key.address
            try db.run(
                "INSERT OR REPLACE INTO skipped_sender_keys (channel_id, sender_device_id, key_id, iteration, message_key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [a.channelID, a.senderDeviceID, Int64(a.keyID), Int64(key.iteration),
                 try sealer.seal(key.messageKey, table: Self.skippedTable, column: "message_key", rowID: Self.skippedRowID(a, key.iteration)),
                 time.microseconds]
            )
        }
    }

    /// Keeps the `limit` highest iterations of `address` and deletes older skipped keys (the
    /// protocol's per-state bound evicts the oldest first); returns how many were deleted.
    /// - Throws: ``KeyStoreError/invalidArgument(_:)`` for a negative limit, GRDB's `DatabaseError`.
    @discardableResult
    public func trimSkippedKeys(_ address: SenderKeyAddress, keeping limit: Int, _ db: Database) throws -> Int {
        guard limit >= 0 else { throw KeyStoreError.invalidArgument("skipped-key limit must not be negative") }
        try db.run(
            """
            DELETE FROM skipped_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ? AND iteration IN (
                SELECT iteration FROM skipped_sender_keys WHERE channel_id = ? AND sender_device_id = ? AND key_id = ?
                ORDER BY iteration DESC LIMIT -1 OFFSET ?)
            """,
            [address.channelID, address.senderDeviceID, Int64(address.keyID), address.channelID, address.senderDeviceID, Int64(address.keyID), limit]
        )
        return db.changesCount
    }

    static func skippedRowID(_ address: SenderKeyAddress, _ iteration: UInt32) -> String { "\(address)/\(iteration)" }
}
