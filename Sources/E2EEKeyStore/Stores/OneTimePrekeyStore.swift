import E2EECrypto
import Foundation
import GRDB

/// One-time prekeys: ids from a persisted counter (from 1, never reused), stored before upload,
/// marked published after, consumed with a time, wiped after the grace window.
package struct OneTimePrekeyStore: Sendable {
    static let table = "one_time_prekeys"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// Takes the next `count` ids from the counter. The counter moves in the caller's
    /// transaction: ids are never reused once that commits, and ids of a rolled-back
    /// transaction were never stored or published, so handing them out again is safe.
    /// - Throws: ``KeyStoreError/invalidArgument(_:)`` for a negative count or when the 32-bit
    ///   id space would be exhausted.
    public func reserveIDs(count: Int, _ db: Database) throws -> [UInt32] {
        guard count >= 0 else { throw KeyStoreError.invalidArgument("prekey count must not be negative") }
        let next = try db.count("SELECT next_one_time_prekey_id FROM store_metadata WHERE id = 1")
        guard next >= 1, Int64(next) + Int64(count) - 1 <= Int64(UInt32.max) else {
            throw KeyStoreError.invalidArgument("one-time prekey ids exhausted")
        }
        try db.run("UPDATE store_metadata SET next_one_time_prekey_id = ? WHERE id = 1", [next + count])
        return (0..<count).map { UInt32(next + $0) }
    }

    /// Stores a new prekey in state `.pendingUpload`.
    /// - Throws: GRDB's `DatabaseError` for a duplicate id or a malformed public key.
    public func storeOneTimePrekey(id: UInt32, material: OneTimePrekeyMaterial, at time: StoreTime, _ db: Database) throws {
        try db.run(
            "INSERT INTO one_time_prekeys (id, public_key, private_key, state, created_at) VALUES (?, ?, ?, 'pending_upload', ?)",
            [Int64(id), Data(material.publicKey),
             try sealer.seal(material.privateKey, table: Self.table, column: "private_key", rowID: String(id)), time.microseconds]
        )
    }

    /// The prekey with `id`, in any state (callers check consumed ones against the grace window).
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadOneTimePrekey(id: UInt32, _ db: Database) throws -> OneTimePrekey? {
        try db.row("SELECT * FROM one_time_prekeys WHERE id = ?", [Int64(id)]).map(decode)
    }

    /// Prekeys in `state`, by id.
    /// - Throws: as ``loadOneTimePrekey(id:_:)``.
    public func loadOneTimePrekeys(state: OneTimePrekeyState, _ db: Database) throws -> [OneTimePrekey] {
        try db.rows("SELECT * FROM one_time_prekeys WHERE state = ? ORDER BY id", [state.rawValue]).map(decode)
    }

    /// How many prekeys are in `state`.
    /// - Throws: GRDB's `DatabaseError`.
    public func countOneTimePrekeys(state: OneTimePrekeyState, _ db: Database) throws -> Int {
        try db.count("SELECT COUNT(*) FROM one_time_prekeys WHERE state = ?", [state.rawValue])
    }

    /// Marks prekeys published after the server accepted them (consumed ones stay consumed).
    /// - Throws: GRDB's `DatabaseError`.
    public func markPublished(ids: [UInt32], _ db: Database) throws {
        for id in ids {
            try db.run("UPDATE one_time_prekeys SET state = 'published' WHERE id = ? AND state = 'pending_upload'", [Int64(id)])
        }
    }

    /// Marks a prekey consumed at `time`. Consuming an already consumed prekey is allowed (the
    /// server can hand one out twice) and keeps the first time.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown (or wiped) id.
    public func consume(id: UInt32, at time: StoreTime, _ db: Database) throws {
        try db.run("UPDATE one_time_prekeys SET state = 'consumed', consumed_at = ? WHERE id = ? AND state != 'consumed'", [time.microseconds, Int64(id)])
        if db.changesCount == 0, try db.count("SELECT COUNT(*) FROM one_time_prekeys WHERE id = ?", [Int64(id)]) == 0 {
            throw KeyStoreError.missingRecord(.oneTimePrekey, id: String(id))
        }
    }

    /// Wipes prekeys consumed before `cutoff` (the end of the grace window); returns how many.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func removeConsumed(before cutoff: StoreTime, _ db: Database) throws -> Int {
        try db.run("DELETE FROM one_time_prekeys WHERE state = 'consumed' AND consumed_at < ?", [cutoff.microseconds])
        return db.changesCount
    }

    /// Wipes prekeys consumed before `cutoff`, except those of `spared` consumed at or after
    /// `consumedSince` (named by a waiting message, docs/spec/protocol.md §10.8); returns how many.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func removeConsumed(before cutoff: StoreTime, sparing spared: Set<UInt32>, consumedSince: StoreTime, _ db: Database) throws -> Int {
        guard !spared.isEmpty else { return try removeConsumed(before: cutoff, db) }
        var removed = 0
        for row in try db.rows("SELECT id, consumed_at FROM one_time_prekeys WHERE state = 'consumed' AND consumed_at < ?", [cutoff.microseconds]) {
            let id = try row.decodeUInt32("id", table: Self.table), consumedAt: Int64 = try row.decode("consumed_at", table: Self.table)
            if spared.contains(id) && consumedAt >= consumedSince.microseconds { continue }
            try db.run("DELETE FROM one_time_prekeys WHERE id = ?", [Int64(id)])
            removed += db.changesCount
        }
        return removed
    }

    private func decode(_ row: Row) throws -> OneTimePrekey {
        let t = Self.table
        let id = try row.decodeUInt32("id", table: t)
        let publicKey: Data = try row.decode("public_key", table: t)
        let consumed: Int64? = try row.decodeIfPresent("consumed_at", table: t)
        return OneTimePrekey(
            id: id, publicKey: [UInt8](publicKey),
            privateKey: try sealer.open(try row.decode("private_key", table: t), table: t, column: "private_key", rowID: String(id)),
            state: try row.decodeEnum("state", table: t),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)),
            consumedAt: consumed.map { StoreTime(microseconds: $0) }
        )
    }
}
