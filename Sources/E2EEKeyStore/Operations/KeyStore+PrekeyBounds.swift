import E2EECrypto
import GRDB

/// Bounds on this device's one-time prekeys.
extension KeyStore {
    /// Marks the `count` oldest published one-time prekeys consumed at `time`: the server no
    /// longer offers them (it handed them out), so they start the grace window of §2 — usable
    /// by a late prekey message for 7 days, then wiped by retention. Returns how many were marked.
    /// - Throws: GRDB's `DatabaseError`.
    package func retireOldestPublishedOneTimePrekeys(count: Int, at time: StoreTime) async throws -> Int {
        guard count > 0 else { return 0 }
        return try await handOff.queuedWrite { db in
            try db.run("""
                UPDATE one_time_prekeys SET state = 'consumed', consumed_at = ?
                WHERE id IN (SELECT id FROM one_time_prekeys WHERE state = 'published' ORDER BY created_at, id LIMIT ?)
                """, [time.microseconds, count])
            return db.changesCount
        }
    }

    /// Keeps at most `limit` one-time prekey rows: wipes the oldest consumed ones beyond it
    /// (unconsumed ones are never removed here). Returns how many were wiped.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func trimOneTimePrekeys(keeping limit: Int) async throws -> Int {
        try await handOff.queuedWrite { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM one_time_prekeys") ?? 0
            guard total > limit else { return 0 }
            try db.run("""
                DELETE FROM one_time_prekeys
                WHERE id IN (SELECT id FROM one_time_prekeys WHERE state = 'consumed' ORDER BY consumed_at, id LIMIT ?)
                """, [total - limit])
            return db.changesCount
        }
    }
}
