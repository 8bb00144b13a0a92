import GRDB

/// A pending message settled as undecryptable: it leaves the pending queue, its ciphertext kept.
package struct SettledPendingRow: Sendable, Equatable {
    /// The message's channel.
    public let channelID: String
    /// The message's server id.
    public let messageID: String
}

extension KeyStore {
    /// Turns the pending row `id` into an undecryptable row with `reason`, keeping its queued
    /// ciphertext parked (``pendingCount()`` and a re-drive of everything skip it). Returns nil
    /// when the row is no longer pending.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    func settlePendingRow(id: String, channelID: String, reason: String, _ db: Database) throws -> SettledPendingRow? {
        guard var message = try timelineStore.loadMessage(id: id, db), message.state == .pendingKey else { return nil }
        message.state = .undecryptable(reason: reason)
        message.plaintext = nil
        try timelineStore.storeMessage(message, db)  // the ciphertext stays, parked
        return SettledPendingRow(channelID: channelID, messageID: id)
    }
}
