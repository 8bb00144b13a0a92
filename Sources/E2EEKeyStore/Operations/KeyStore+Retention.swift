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
    ///
    /// A prekey that a message waiting for its device to be linked names (§10.8: a pending row
    /// under `unlinked:`, whose content `named` reads) is kept past that cutoff while the message
    /// waits, but never beyond `waitingGrace` seconds past it. `named` runs only when some prekey
    /// is past its cutoff.
    /// - Throws: GRDB's `DatabaseError` (nothing is wiped then).
    package func wipeRetained(signedPrekeysRetiredBefore: StoreTime, oneTimePrekeysConsumedBefore: StoreTime,
                             senderKeyStates: [SenderKeyAddress], waitingGrace: Int64 = 0,
                             named: @escaping @Sendable (String) -> NamedPrekeys? = { _ in nil }) async throws -> RetentionWipe {
        try await handOff.queuedWrite { [self] db in
            let signedCutoff = signedPrekeysRetiredBefore.microseconds, oneTimeCutoff = oneTimePrekeysConsumedBefore.microseconds
            let due = try db.count("""
                SELECT (SELECT COUNT(*) FROM signed_prekeys WHERE is_current = 0 AND retired_at < ?)
                     + (SELECT COUNT(*) FROM one_time_prekeys WHERE state = 'consumed' AND consumed_at < ?)
                """, [signedCutoff, oneTimeCutoff])
            let kept = due > 0 && waitingGrace > 0 ? try namedByUnlinkedWaits(named, db) : NamedPrekeys()
            let grace = waitingGrace * 1_000_000
            var signed = 0
            for row in try db.rows("SELECT id, retired_at FROM signed_prekeys WHERE is_current = 0 AND retired_at < ?", [signedCutoff]) {
                let id = try row.decodeUInt32("id", table: "signed_prekeys"), retiredAt: Int64 = try row.decode("retired_at", table: "signed_prekeys")
                if kept.signedPrekeyIDs.contains(id) && retiredAt >= signedCutoff - grace { continue }
                try db.run("DELETE FROM signed_prekeys WHERE id = ?", [Int64(id)])
                signed += db.changesCount
            }
            let opks = try oneTimePrekeyStore.removeConsumed(before: oneTimePrekeysConsumedBefore, sparing: kept.oneTimePrekeyIDs,
                                                             consumedSince: StoreTime(microseconds: oneTimeCutoff - grace), db)
            for address in senderKeyStates { try receiverSenderKeyStore.removeReceiverSenderKey(address, db) }
            return RetentionWipe(signedPrekeys: signed, oneTimePrekeys: opks, senderKeyStates: senderKeyStates.count)
        }
    }

    /// The prekeys the messages waiting under `unlinked:` name, read by `named` from their content.
    /// - Throws: GRDB's `DatabaseError`.
    private func namedByUnlinkedWaits(_ named: (String) -> NamedPrekeys?, _ db: Database) throws -> NamedPrekeys {
        let contents = try String.fetchAll(db, sql: """
            SELECT p.content FROM pending_ciphertexts p CROSS JOIN timeline t ON t.message_id = p.message_id
            WHERE p.waiting_for >= 'unlinked:' AND p.waiting_for < 'unlinked;' AND t.state = 'pending_key'
            """)
        var all = NamedPrekeys()
        for content in contents {
            guard let prekeys = named(content) else { continue }
            all.signedPrekeyIDs.formUnion(prekeys.signedPrekeyIDs)
            all.oneTimePrekeyIDs.formUnion(prekeys.oneTimePrekeyIDs)
        }
        return all
    }
}

/// Prekeys that a waiting prekey message names (docs/spec/protocol.md §10.8).
package struct NamedPrekeys: Sendable, Equatable {
    /// Signed prekey ids.
    public var signedPrekeyIDs: Set<UInt32>
    /// One-time prekey ids (never 0).
    public var oneTimePrekeyIDs: Set<UInt32>

    /// Creates the value.
    public init(signedPrekeyIDs: Set<UInt32> = [], oneTimePrekeyIDs: Set<UInt32> = []) {
        self.signedPrekeyIDs = signedPrekeyIDs
        self.oneTimePrekeyIDs = oneTimePrekeyIDs
    }
}
