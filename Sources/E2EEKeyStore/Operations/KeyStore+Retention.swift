import E2EECrypto
import GRDB

/// What a retention run wiped (docs/spec/protocol.md §1, §2, §4).
package struct RetentionWipe: Sendable, Equatable {
    /// Replaced signed prekeys wiped (with the ephemeral keys accepted under them).
    public var signedPrekeys: Int
    /// Consumed one-time prekeys wiped after their grace window.
    public var oneTimePrekeys: Int
    /// Receiving sender-key states wiped.
    public var senderKeyStates: Int

    /// Creates the value.
    public init(signedPrekeys: Int, oneTimePrekeys: Int, senderKeyStates: Int) {
        self.signedPrekeys = signedPrekeys
        self.oneTimePrekeys = oneTimePrekeys
        self.senderKeyStates = senderKeyStates
    }
}

/// The deletions forward secrecy depends on (docs/key-store.md, "Retention").
extension KeyStore {
    /// Receiving sender-key states for which a state of another, later installed `key_id` of
    /// the same (channel, sender device) exists: the only ones retention may wipe (§4). The
    /// newest state of each (channel, sender device) is never among them.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func receiverSenderKeysWithNewerKey() async throws -> [ReceiverSenderKey] {
        try await read { [self] db in
            let rows = try db.rows("""
                SELECT r.channel_id, r.sender_device_id, r.key_id FROM receiver_sender_keys r
                WHERE EXISTS (SELECT 1 FROM receiver_sender_keys o
                              WHERE o.channel_id = r.channel_id AND o.sender_device_id = r.sender_device_id
                                AND (o.created_at, o.key_id) > (r.created_at, r.key_id))
                """)
            return try rows.compactMap { row in
                let address = SenderKeyAddress(channelID: try row.decode("channel_id", table: "receiver_sender_keys"),
                                               senderDeviceID: try row.decode("sender_device_id", table: "receiver_sender_keys"),
                                               keyID: try row.decodeUInt32("key_id", table: "receiver_sender_keys"))
                return try receiverSenderKeyStore.loadReceiverSenderKey(address, db)
            }
        }
    }

    /// In one transaction: wipes signed prekeys replaced before `signedPrekeysRetiredBefore`
    /// (never the current one), one-time prekeys consumed before `oneTimePrekeysConsumedBefore`,
    /// and the receiving sender-key states at `senderKeyStates` (with their skipped keys).
    /// - Throws: GRDB's `DatabaseError` (nothing is wiped then).
    package func wipeRetained(signedPrekeysRetiredBefore: StoreTime, oneTimePrekeysConsumedBefore: StoreTime,
                             senderKeyStates: [SenderKeyAddress]) async throws -> RetentionWipe {
        try await handOff.queuedWrite { [self] db in
            try db.run("DELETE FROM signed_prekeys WHERE is_current = 0 AND retired_at < ?", [signedPrekeysRetiredBefore.microseconds])
            let signed = db.changesCount
            let opks = try oneTimePrekeyStore.removeConsumed(before: oneTimePrekeysConsumedBefore, db)
            for address in senderKeyStates { try receiverSenderKeyStore.removeReceiverSenderKey(address, db) }
            return RetentionWipe(signedPrekeys: signed, oneTimePrekeys: opks, senderKeyStates: senderKeyStates.count)
        }
    }
}
