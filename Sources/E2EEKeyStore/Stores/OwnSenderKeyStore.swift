import E2EECrypto
import Foundation
import GRDB

/// This device's sender keys per channel: one current key per channel; a rotation retires the
/// old one (its rows can then be removed).
package struct OwnSenderKeyStore: Sendable {
    static let table = "own_sender_keys"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    static func rowID(channelID: String, keyID: UInt32) -> String { "\(channelID)/\(keyID)" }

    /// The channel's current sender key.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadCurrentSenderKey(channelID: String, _ db: Database) throws -> OwnSenderKey? {
        try db.row("SELECT * FROM own_sender_keys WHERE channel_id = ? AND is_current = 1", [channelID]).map(decode)
    }

    /// The key ids of every sender key the channel keeps (current and retained), which a new
    /// key must not reuse.
    /// - Throws: GRDB's `DatabaseError`.
    public func loadKeyIDs(channelID: String, _ db: Database) throws -> Set<UInt32> {
        Set(try Int64.fetchAll(db, sql: "SELECT key_id FROM own_sender_keys WHERE channel_id = ?", arguments: [channelID])
            .map { UInt32(truncatingIfNeeded: $0) })
    }

    /// Makes `key` the channel's current sender key (retiring the previous one).
    /// - Throws: GRDB's `DatabaseError` if the key id is already used in the channel.
    public func storeNewSenderKey(_ key: OwnSenderKey, _ db: Database) throws {
        try db.run("UPDATE own_sender_keys SET is_current = 0 WHERE channel_id = ? AND is_current = 1", [key.channelID])
        try db.run(
            "INSERT INTO own_sender_keys (channel_id, key_id, state, is_current, messages_sent, created_at) VALUES (?, ?, ?, 1, ?, ?)",
            [key.channelID, Int64(key.keyID),
             try sealer.seal(key.state, table: Self.table, column: "state", rowID: Self.rowID(channelID: key.channelID, keyID: key.keyID)),
             key.messagesSent, key.createdAt.microseconds]
        )
    }

    /// Stores the advanced state after encrypting `messages` more messages.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown key.
    public func storeAdvancedSenderKey(channelID: String, keyID: UInt32, state: SecretBytes, messages: Int = 1, _ db: Database) throws {
        let rowID = Self.rowID(channelID: channelID, keyID: keyID)
        try db.run("UPDATE own_sender_keys SET state = ?, messages_sent = messages_sent + ? WHERE channel_id = ? AND key_id = ?",
                   [try sealer.seal(state, table: Self.table, column: "state", rowID: rowID), messages, channelID, Int64(keyID)])
        guard db.changesCount == 1 else { throw KeyStoreError.missingRecord(.ownSenderKey, id: rowID) }
    }

    /// Removes the channel's retired keys (the current one stays).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeRetiredSenderKeys(channelID: String, _ db: Database) throws {
        try db.run("DELETE FROM own_sender_keys WHERE channel_id = ? AND is_current = 0", [channelID])
    }

    private func decode(_ row: Row) throws -> OwnSenderKey {
        let t = Self.table
        let channelID: String = try row.decode("channel_id", table: t)
        let keyID = try row.decodeUInt32("key_id", table: t)
        let isCurrent: Int64 = try row.decode("is_current", table: t)
        let sent: Int64 = try row.decode("messages_sent", table: t)
        return OwnSenderKey(
            channelID: channelID, keyID: keyID,
            state: try sealer.open(try row.decode("state", table: t), table: t, column: "state", rowID: Self.rowID(channelID: channelID, keyID: keyID)),
            isCurrent: isCurrent == 1, messagesSent: Int(clamping: sent),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t))
        )
    }
}
