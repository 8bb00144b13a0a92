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

    /// Pins `key` for `userID`: any previous pin replaced, no change pending, `E_max` and the
    /// other readings kept (the app's acceptance or pin, docs/spec/protocol.md §10.17).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func pinKey(_ key: [UInt8], userID: String, _ db: Database) throws {
        var keys = try loadKeys(userID: userID, db)
        keys.pin(key, userID: userID)
        try replaceKeys(userID: userID, with: keys, db)
        try storeStanding(ContactKeyStanding(userID: userID, state: .pinned, pinnedKey: key), db)
    }

    /// Returns `userID` to *no key*: every pinned key replaced, and no device of theirs trusted
    /// any more, so that each listed one is held until approved (§5.12, §10.17).
    /// - Throws: as ``pinKey(_:userID:_:)``.
    public func returnToNoKey(userID: String, _ db: Database) throws {
        let keys = try loadKeys(userID: userID, db).map { key -> ContactKey in
            var key = key
            if key.state.isPinned { key.state = .replaced }
            return key
        }
        try replaceKeys(userID: userID, with: keys, db)
        try storeStanding(ContactKeyStanding(userID: userID, state: .none), db)
        try RecipientStore().distrustKnownDevices(ofUser: userID, db)
    }

    /// Marks the pinned key of `userID` verified; returns false when none is pinned.
    /// - Throws: as ``pinKey(_:userID:_:)``.
    public func markPinnedKeyVerified(userID: String, _ db: Database) throws -> Bool {
        var keys = try loadKeys(userID: userID, db)
        guard let index = keys.firstIndex(where: { $0.state.isPinned }) else { return false }
        keys[index].state = .verified
        try replaceKeys(userID: userID, with: keys, db)
        return true
    }

    /// The stored link of every device of `userID`, by device id.
    /// - Throws: as ``loadStanding(userID:_:)``.
    public func loadLinks(userID: String, _ db: Database) throws -> [String: DeviceLink] {
        let t = Self.links
        let links = try db.rows("SELECT * FROM device_links WHERE user_id = ?", [userID]).map { row in
            let key: Data? = try row.decodeIfPresent("user_key", table: t)
            let certificate: Data? = try row.decodeIfPresent("certificate", table: t)
            return DeviceLink(userID: userID, deviceID: try row.decode("device_id", table: t), key: key.map { [UInt8]($0) },
                              epoch: try row.decodeUInt32("epoch", table: t), notAfter: try row.decodeUInt32("not_after", table: t),
                              linked: try row.decode("linked", table: t), certificate: certificate.map { [UInt8]($0) })
        }
        return Dictionary(links.map { ($0.deviceID, $0) }) { a, _ in a }
    }

    /// Stores (inserts or replaces) device links.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeLinks(_ links: [DeviceLink], _ db: Database) throws {
        for link in links {
            try db.run("""
                INSERT OR REPLACE INTO device_links (user_id, device_id, user_key, epoch, not_after, linked, certificate)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [link.userID, link.deviceID, link.key.map { Data($0) }, Int64(link.epoch), Int64(link.notAfter), link.linked,
                      link.certificate.map { Data($0) }])
        }
    }

    /// The devices of `userID` this device trusts under text 1.2 — known (trusted on first use
    /// or approved, and confirmed), held and declined nowhere: only they can make the user adopt
    /// a key (docs/spec/protocol.md §10.6).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func trustedDevices(userID: String, _ db: Database) throws -> Set<String> {
        Set(try db.rows("""
            SELECT device_id FROM known_devices WHERE user_id = ? AND unconfirmed = 0 AND distrusted = 0
                AND device_id NOT IN (SELECT device_id FROM channel_recipients WHERE user_id = ? AND state IN ('held', 'declined'))
            """, [userID, userID]).map { try $0.decode("device_id", table: "known_devices") as String })
    }

    /// When this store was last found rolled back (unix seconds; kept after the keys are renewed,
    /// for §10.17's 30 quiet days).
    /// - Throws: GRDB's `DatabaseError`.
    public func lastRollback(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT clock_rolled_back_at FROM store_metadata WHERE id = 1")
    }

    /// Whether `deviceID` is a device of a user with a user key (pinned or conflicted): such a
    /// device is decided by certificates, never by an approval (docs/spec/protocol.md §10.7).
    /// - Throws: GRDB's `DatabaseError`.
    public func isDeviceOfKeyedUser(_ deviceID: String, _ db: Database) throws -> Bool {
        try db.row("""
            SELECT 1 FROM device_links l JOIN contact_key_standings s ON s.user_id = l.user_id
            WHERE l.device_id = ? AND s.state != 'none' LIMIT 1
            """, [deviceID]) != nil
    }

    /// Caps every stored `seen_until` at `limit` (a confirmed clock, §10.19).
    /// - Throws: GRDB's `DatabaseError`.
    public func capSeenUntil(at limit: Int64, _ db: Database) throws {
        try db.run("UPDATE contact_keys SET seen_until = ? WHERE seen_until > ?", [limit, limit])
    }

    /// How a message from (`userID`, `deviceID`) stands under the user's key (§10.7): `nil` when
    /// the user has no key (or is not met yet: text 1.2 decides), `true` when the device is
    /// linked under the pinned key, `false` otherwise (unlinked, or the user conflicted).
    /// - Throws: GRDB's `DatabaseError`.
    public func senderLink(userID: String, deviceID: String, _ db: Database) throws -> Bool? {
        guard let state = try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM contact_key_standings WHERE user_id = ?"), arguments: [userID]),
              state != ContactKeyStanding.State.none.rawValue else { return nil }
        guard state == ContactKeyStanding.State.pinned.rawValue else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: "SELECT linked FROM device_links WHERE user_id = ? AND device_id = ?"),
                                 arguments: [userID, deviceID]) ?? false
    }

    /// The users with messages waiting for one of their devices to be linked (§10.8).
    /// - Throws: GRDB's `DatabaseError`.
    public func usersWithUnlinkedWaits(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT DISTINCT t.sender_user_id FROM pending_ciphertexts p CROSS JOIN timeline t ON t.message_id = p.message_id
            WHERE p.waiting_for >= 'unlinked:' AND p.waiting_for < 'unlinked;' AND t.state = 'pending_key' AND t.sender_user_id IS NOT NULL
            ORDER BY t.sender_user_id
            """)
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
