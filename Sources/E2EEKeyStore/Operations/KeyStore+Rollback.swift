import E2EECrypto
import Foundation
import GRDB

/// What ``KeyStore/retireKeysAfterRollback()`` removed or retired.
package struct RollbackRetirement: Sendable, Equatable {
    /// Pairwise session rows removed (every remote device gets a new session).
    public var sessionsRemoved: Int
    /// Own sender keys that stopped being current (every group gets a new key).
    public var senderKeysRetired: Int
    /// One-time prekeys removed, unconsumed and consumed alike (all are replaced).
    public var oneTimePrekeysRemoved: Int

    /// Creates the value.
    public init(sessionsRemoved: Int, senderKeysRetired: Int, oneTimePrekeysRemoved: Int) {
        self.sessionsRemoved = sessionsRemoved
        self.senderKeysRetired = senderKeysRetired
        self.oneTimePrekeysRemoved = oneTimePrekeysRemoved
    }
}

/// The store's side of a rollback (docs/spec/protocol.md §3, "Nonce safety" and "Detecting a rollback").
extension KeyStore {
    /// When a rollback was detected and the keys are not renewed yet (`nil` otherwise).
    /// - Throws: GRDB's `DatabaseError`.
    package func rollbackDetectedAt() async throws -> StoreTime? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT rollback_detected_at FROM store_metadata WHERE id = 1").map { StoreTime(microseconds: $0) }
        }
    }

    /// Records that this store was rolled back (kept until ``clearRollbackMark()``; an earlier
    /// mark's time is kept).
    /// - Throws: GRDB's `DatabaseError`.
    package func markRolledBack(at time: StoreTime) async throws {
        try await handOff.queuedWrite { db in
            try db.run("UPDATE store_metadata SET rollback_detected_at = COALESCE(rollback_detected_at, ?) WHERE id = 1", [time.microseconds])
            try db.run("UPDATE store_metadata SET clock_rolled_back_at = ? WHERE id = 1", [time.microseconds / 1_000_000])
        }
    }

    /// Forgets the rollback mark once the keys were renewed.
    /// - Throws: GRDB's `DatabaseError`.
    package func clearRollbackMark() async throws {
        try await handOff.queuedWrite { db in try db.run("UPDATE store_metadata SET rollback_detected_at = NULL WHERE id = 1") }
    }

    /// In one transaction: removes every pairwise session (the next send to each device starts
    /// a new one with X3DH), makes no sender key current (the next group send makes and
    /// distributes a new one), and removes every one-time prekey (the caller makes and
    /// publishes new ones). Signed prekeys are the caller's (a rotation keeps the old one for
    /// the retention period).
    /// - Throws: GRDB's `DatabaseError` (nothing changed then).
    package func retireKeysAfterRollback() async throws -> RollbackRetirement {
        try await handOff.queuedWrite { db in
            try db.run("DELETE FROM sessions")
            let sessions = db.changesCount
            try db.run("UPDATE own_sender_keys SET is_current = 0 WHERE is_current = 1")
            let senderKeys = db.changesCount
            try db.run("DELETE FROM one_time_prekeys")
            return RollbackRetirement(sessionsRemoved: sessions, senderKeysRetired: senderKeys, oneTimePrekeysRemoved: db.changesCount)
        }
    }

    /// Whether the store holds a message with server id `messageID`, or an outbox entry of
    /// `channelID` with the same `content` bytes (by SHA-256): what this store sent or received.
    /// - Throws: GRDB's `DatabaseError`.
    package func holdsMessage(id messageID: String, channelID: String, contentHash: [UInt8]) async throws -> Bool {
        try await read { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM timeline WHERE message_id = ?)", arguments: [messageID]) == true {
                return true
            }
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM outbox WHERE channel_id = ? AND content_hash = ?)",
                                     arguments: [channelID, Data(contentHash)]) == true
        }
    }
}
