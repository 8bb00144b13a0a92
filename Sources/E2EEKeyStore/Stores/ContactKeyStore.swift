import Foundation
import GRDB

/// Contacts' user keys (schema `v19`, docs/spec/protocol.md §10): each user's key standing, the
/// keys listings showed under it, each device's last verified certificate, and this device's
/// clock readings. Public data only, stored in clear.
package struct ContactKeyStore: Sendable {
    private static let standings = "contact_key_standings"
    private static let keys = "contact_keys"
    private static let links = "device_links"

    /// A store.
    public init() {}

    /// The standing of `userID`, or `nil` before first contact.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadStanding(userID: String, _ db: Database) throws -> ContactKeyStanding? {
        guard let row = try db.row("SELECT * FROM contact_key_standings WHERE user_id = ?", [userID]) else { return nil }
        let t = Self.standings
        var change: ContactKeyStanding.PendingChange?
        if let due: Int64 = try row.decodeIfPresent("change_due_at", table: t) {
            let to: Data? = try row.decodeIfPresent("change_to", table: t)
            change = .init(to: to.map { [UInt8]($0) }, dueAt: due, vouched: try row.decode("change_vouched", table: t),
                           wasVerified: try row.decode("change_was_verified", table: t))
        }
        let pinned: Data? = try row.decodeIfPresent("pinned_key", table: t)
        return ContactKeyStanding(userID: userID, state: try row.decodeEnum("state", table: t), pinnedKey: pinned.map { [UInt8]($0) },
                                  pendingChange: change, otherKeySurfacedAt: try row.decodeIfPresent("other_key_surfaced_at", table: t))
    }

    /// Every user with a standing in `state`.
    /// - Throws: as ``loadStanding(userID:_:)``.
    public func loadUsers(in state: ContactKeyStanding.State, _ db: Database) throws -> [String] {
        try db.rows("SELECT user_id FROM contact_key_standings WHERE state = ? ORDER BY user_id", [state.rawValue]).map {
            try $0.decode("user_id", table: Self.standings)
        }
    }

    /// Stores (inserts or replaces) a standing.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeStanding(_ standing: ContactKeyStanding, _ db: Database) throws {
        let change = standing.pendingChange
        try db.run("""
            INSERT OR REPLACE INTO contact_key_standings
                (user_id, state, pinned_key, change_due_at, change_to, change_vouched, change_was_verified, other_key_surfaced_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [standing.userID, standing.state.rawValue, standing.pinnedKey.map { Data($0) }, change?.dueAt, change?.to.map { Data($0) },
                  change?.vouched ?? false, change?.wasVerified ?? false, standing.otherKeySurfacedAt])
    }

    /// Every stored key of `userID`, oldest first.
    /// - Throws: as ``loadStanding(userID:_:)``.
    public func loadKeys(userID: String, _ db: Database) throws -> [ContactKey] {
        let t = Self.keys
        return try db.rows("SELECT * FROM contact_keys WHERE user_id = ? ORDER BY first_listed_at, user_key", [userID]).map { row in
            let key: Data = try row.decode("user_key", table: t)
            return ContactKey(userID: userID, key: [UInt8](key), state: try row.decodeEnum("state", table: t),
                              maxEpoch: try row.decodeUInt32("max_epoch", table: t), seenUntil: try row.decodeUInt32("seen_until", table: t),
                              seenAt: try row.decode("seen_at", table: t), firstListedAt: try row.decode("first_listed_at", table: t))
        }
    }

    /// Replaces the stored keys of `userID` with `keys`.
    /// - Throws: GRDB's `DatabaseError`.
    public func replaceKeys(userID: String, with keys: [ContactKey], _ db: Database) throws {
        try db.run("DELETE FROM contact_keys WHERE user_id = ?", [userID])
        for key in keys {
            try db.run("""
                INSERT INTO contact_keys (user_id, user_key, state, max_epoch, seen_until, seen_at, first_listed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [userID, Data(key.key), key.state.rawValue, Int64(key.maxEpoch), Int64(key.seenUntil), key.seenAt, key.firstListedAt])
        }
    }

    /// The stored link of every device of `userID`, by device id.
    /// - Throws: as ``loadStanding(userID:_:)``.
    public func loadLinks(userID: String, _ db: Database) throws -> [String: DeviceLink] {
        let t = Self.links
        let links = try db.rows("SELECT * FROM device_links WHERE user_id = ?", [userID]).map { row in
            let key: Data? = try row.decodeIfPresent("user_key", table: t)
            return DeviceLink(userID: userID, deviceID: try row.decode("device_id", table: t), key: key.map { [UInt8]($0) },
                              epoch: try row.decodeUInt32("epoch", table: t), notAfter: try row.decodeUInt32("not_after", table: t),
                              linked: try row.decode("linked", table: t))
        }
        return Dictionary(links.map { ($0.deviceID, $0) }) { a, _ in a }
    }

    /// Stores (inserts or replaces) device links.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeLinks(_ links: [DeviceLink], _ db: Database) throws {
        for link in links {
            try db.run("""
                INSERT OR REPLACE INTO device_links (user_id, device_id, user_key, epoch, not_after, linked) VALUES (?, ?, ?, ?, ?, ?)
                """, [link.userID, link.deviceID, link.key.map { Data($0) }, Int64(link.epoch), Int64(link.notAfter), link.linked])
        }
    }

    /// This device's clock readings; the mark starts at `now` when none was stored.
    /// - Throws: as ``loadStanding(userID:_:)``.
    public func loadClock(now: Int64, _ db: Database) throws -> ClockReadings {
        guard let row = try db.row("SELECT clock_mark, clock_latest_post, clock_agreed, clock_went_back, clock_suspect FROM store_metadata WHERE id = 1") else {
            return ClockReadings(mark: now)
        }
        let t = "store_metadata"
        return ClockReadings(mark: try row.decodeIfPresent("clock_mark", table: t) ?? now,
                             latestPostReading: try row.decodeIfPresent("clock_latest_post", table: t),
                             agreedReading: try row.decodeIfPresent("clock_agreed", table: t),
                             wentBack: try row.decode("clock_went_back", table: t), suspect: try row.decode("clock_suspect", table: t))
    }

    /// Stores this device's clock readings.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeClock(_ clock: ClockReadings, _ db: Database) throws {
        try db.run("""
            UPDATE store_metadata SET clock_mark = ?, clock_latest_post = ?, clock_agreed = ?, clock_went_back = ?, clock_suspect = ? WHERE id = 1
            """, [clock.mark, clock.latestPostReading, clock.agreedReading, clock.wentBack, clock.suspect])
    }
}
