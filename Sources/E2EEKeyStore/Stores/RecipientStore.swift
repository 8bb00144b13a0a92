import GRDB

/// Who receives a channel's keys (schema `v6`): per-channel recipient standings, the devices
/// this device knows as a user's, DM participants, membership anomalies and recipient policies.
/// Public data only, stored in clear.
package struct RecipientStore: Sendable {
    private static let table = "channel_recipients"

    /// A store.
    public init() {}

    /// Every device's standing in `channelID`.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadRecipients(channelID: String, _ db: Database) throws -> [ChannelRecipient] {
        try db.rows("SELECT * FROM channel_recipients WHERE channel_id = ? ORDER BY user_id, device_id", [channelID]).map(decode)
    }

    /// Every standing in `state`, across channels (for instance every held device).
    /// - Throws: as ``loadRecipients(channelID:_:)``.
    public func loadRecipients(state: RecipientState, _ db: Database) throws -> [ChannelRecipient] {
        try db.rows("SELECT * FROM channel_recipients WHERE state = ? ORDER BY channel_id, user_id, device_id", [state.rawValue]).map(decode)
    }

    /// Every standing of `deviceID`, across channels.
    /// - Throws: as ``loadRecipients(channelID:_:)``.
    public func loadRecipients(deviceID: String, _ db: Database) throws -> [ChannelRecipient] {
        try db.rows("SELECT * FROM channel_recipients WHERE device_id = ? ORDER BY channel_id", [deviceID]).map(decode)
    }

    /// Every standing of a device of `userID`, across channels (where that user's devices are
    /// compared when a new one of theirs appears).
    /// - Throws: as ``loadRecipients(channelID:_:)``.
    public func loadRecipients(userID: String, _ db: Database) throws -> [ChannelRecipient] {
        try db.rows("SELECT * FROM channel_recipients WHERE user_id = ? ORDER BY channel_id, device_id", [userID]).map(decode)
    }

    /// Approves `deviceID` in every channel that holds or declined it (one approval of a device
    /// covers every channel) and records it as a known device of its user. Returns the updated
    /// standings (empty when no channel held or declined it).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    /// `decidedAt` (Unix milliseconds) is when the decision was made (``deviceDecidedAt(_:_:)``).
    public func approveDevice(_ deviceID: String, at time: StoreTime, decidedAt: Int64? = nil, _ db: Database) throws -> [ChannelRecipient] {
        let updated = try loadRecipients(deviceID: deviceID, db).filter { $0.state == .held || $0.state == .declined }.map {
            ChannelRecipient(channelID: $0.channelID, userID: $0.userID, deviceID: $0.deviceID, state: .recipient, updatedAt: time)
        }
        try storeRecipients(updated, db)
        try storeKnownDevices(updated.map { ($0.userID, $0.deviceID) }, at: time, db)
        try confirmKnownDevices([deviceID], db)
        try recordDecision(deviceID: deviceID, at: decidedAt, db)
        return updated
    }

    /// Declines `deviceID` in every channel that holds it or sends to it. Returns the updated
    /// standings (empty when no channel held it or sent to it).
    /// - Throws: as ``approveDevice(_:at:_:)``.
    public func declineDevice(_ deviceID: String, at time: StoreTime, decidedAt: Int64? = nil, _ db: Database) throws -> [ChannelRecipient] {
        let updated = try loadRecipients(deviceID: deviceID, db).filter { $0.state == .held || $0.state == .recipient }.map {
            ChannelRecipient(channelID: $0.channelID, userID: $0.userID, deviceID: $0.deviceID, state: .declined, updatedAt: time)
        }
        try storeRecipients(updated, db)
        try recordDecision(deviceID: deviceID, at: decidedAt, db)
        return updated
    }

    /// When the last decision about `deviceID` was made (Unix milliseconds; `nil` when none was
    /// recorded): an announced decision older than it changes nothing (docs/spec/protocol.md §5.15).
    /// - Throws: GRDB's `DatabaseError`.
    public func deviceDecidedAt(_ deviceID: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT MAX(decided_at) FROM channel_recipients WHERE device_id = ?", arguments: [deviceID])
    }

    /// Stamps every standing of `deviceID` with the time of a decision about it (one decision
    /// covers every channel), whether or not it changed a state.
    private func recordDecision(deviceID: String, at decidedAt: Int64?, _ db: Database) throws {
        guard let decidedAt else { return }
        try db.run("UPDATE channel_recipients SET decided_at = ? WHERE device_id = ?", [decidedAt, deviceID])
    }

    /// Inserts or replaces standings.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeRecipients(_ recipients: [ChannelRecipient], _ db: Database) throws {
        for recipient in recipients {
            try db.run("""
                INSERT INTO channel_recipients (channel_id, user_id, device_id, state, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(channel_id, device_id) DO UPDATE SET user_id = excluded.user_id, state = excluded.state,
                    updated_at = excluded.updated_at
                """, [recipient.channelID, recipient.userID, recipient.deviceID, recipient.state.rawValue, recipient.updatedAt.microseconds])
        }
    }

    /// The devices this device knows as `userIDs`' (first contact, or keys sent), by user. A user
    /// whose devices were all distrusted (``distrustKnownDevices(ofUser:_:)``) is present with an
    /// empty set: met before, none of their devices trusted.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadKnownDevices(userIDs: [String], _ db: Database) throws -> [String: Set<String>] {
        var known: [String: Set<String>] = [:]
        for user in Set(userIDs) {
            let rows = try db.rows("SELECT device_id, distrusted FROM known_devices WHERE user_id = ?", [user])
            guard !rows.isEmpty else { continue }
            known[user] = Set(try rows.filter { try !$0.decode("distrusted", table: "known_devices") }.map {
                try $0.decode("device_id", table: "known_devices") as String
            })
        }
        return known
    }

    /// Takes back the trust in every known device of `userID` (a user returned to *no key*,
    /// docs/spec/protocol.md §10.17): the user stays met, and each device is held until approved.
    /// A user first met under a key has no known devices (certificates decided them): every
    /// device a listing showed for them (`device_links`) is recorded here, distrusted, so that the
    /// user counts as met and no later listing is taken as a first contact.
    /// - Throws: GRDB's `DatabaseError`.
    public func distrustKnownDevices(ofUser userID: String, _ db: Database) throws {
        try db.run("""
            INSERT OR IGNORE INTO known_devices (user_id, device_id, known_since, unconfirmed, distrusted)
            SELECT user_id, device_id, 0, 0, 1 FROM device_links WHERE user_id = ?
            """, [userID])
        try db.run("UPDATE known_devices SET distrusted = 1 WHERE user_id = ?", [userID])
        try db.run("UPDATE channel_recipients SET state = 'held' WHERE user_id = ? AND state = 'recipient'", [userID])
    }

    /// Records devices as known (first contact, or keys sent); known ones keep their date (and
    /// their confirmation). `unconfirmed`: our own devices from a login's listing, whose
    /// decisions count only once the app confirms them (``confirmKnownDevices(_:_:)``).
    /// - Throws: GRDB's `DatabaseError`.
    public func storeKnownDevices(_ devices: [(userID: String, deviceID: String)], at time: StoreTime, unconfirmed: Bool = false,
                                  _ db: Database) throws {
        for device in devices {
            try db.run("INSERT OR IGNORE INTO known_devices (user_id, device_id, known_since, unconfirmed) VALUES (?, ?, ?, ?)",
                       [device.userID, device.deviceID, time.microseconds, unconfirmed ? 1 : 0])
        }
    }

    /// The known devices of `userID` still waiting for the app's confirmation.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadUnconfirmedDevices(userID: String, _ db: Database) throws -> [String] {
        try db.rows("SELECT device_id FROM known_devices WHERE user_id = ? AND unconfirmed = 1 ORDER BY device_id", [userID]).map {
            try $0.decode("device_id", table: "known_devices")
        }
    }

    /// Confirms known devices (the user saw them listed and said they are theirs). Returns the
    /// ids that were waiting for it.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func confirmKnownDevices(_ deviceIDs: [String], _ db: Database) throws -> [String] {
        var confirmed: [String] = []
        for device in Set(deviceIDs).sorted() {
            try db.run("UPDATE known_devices SET unconfirmed = 0 WHERE device_id = ? AND unconfirmed = 1", [device])
            if db.changesCount > 0 { confirmed.append(device) }
            try db.run("UPDATE known_devices SET distrusted = 0 WHERE device_id = ? AND distrusted = 1", [device])
        }
        return confirmed
    }

    /// A DM's two participants (empty while not fixed).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadParticipants(channelID: String, _ db: Database) throws -> Set<String> {
        Set(try db.rows("SELECT user_id FROM dm_participants WHERE channel_id = ?", [channelID]).map {
            try $0.decode("user_id", table: "dm_participants")
        })
    }

    /// Fixes a DM's participants, once: does nothing (and returns `false`) when they are fixed
    /// already or `userIDs` is not two distinct users.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func fixParticipants(channelID: String, userIDs: Set<String>, _ db: Database) throws -> Bool {
        guard userIDs.count == 2, try db.count("SELECT COUNT(*) FROM dm_participants WHERE channel_id = ?", [channelID]) == 0 else {
            return false
        }
        for user in userIDs { try db.run("INSERT INTO dm_participants (channel_id, user_id) VALUES (?, ?)", [channelID, user]) }
        return true
    }

    /// Users already surfaced as membership anomalies of `channelID`.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadAnomalies(channelID: String, _ db: Database) throws -> Set<String> {
        Set(try db.rows("SELECT user_id FROM membership_anomalies WHERE channel_id = ?", [channelID]).map {
            try $0.decode("user_id", table: "membership_anomalies")
        })
    }

    /// Records users surfaced as membership anomalies of `channelID`.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeAnomalies(channelID: String, userIDs: [String], at time: StoreTime, _ db: Database) throws {
        for user in userIDs {
            try db.run("INSERT OR IGNORE INTO membership_anomalies (channel_id, user_id, seen_at) VALUES (?, ?, ?)",
                       [channelID, user, time.microseconds])
        }
    }

    /// The policy set for a channel, or for the account when `channelID` is nil (`nil`: none set).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadPolicy(channelID: String?, _ db: Database) throws -> RecipientPolicy? {
        try db.row("SELECT policy FROM recipient_policies WHERE scope = ?", [channelID ?? ""]).map {
            try $0.decodeEnum("policy", table: "recipient_policies")
        }
    }

    /// Sets (or with `nil` clears) the policy of a channel, or of the account when `channelID` is nil.
    /// - Throws: GRDB's `DatabaseError`.
    public func storePolicy(_ policy: RecipientPolicy?, channelID: String?, _ db: Database) throws {
        if let policy {
            try db.run("INSERT OR REPLACE INTO recipient_policies (scope, policy) VALUES (?, ?)", [channelID ?? "", policy.rawValue])
        } else {
            try db.run("DELETE FROM recipient_policies WHERE scope = ?", [channelID ?? ""])
        }
    }

    private func decode(_ row: Row) throws -> ChannelRecipient {
        let t = Self.table
        return ChannelRecipient(channelID: try row.decode("channel_id", table: t), userID: try row.decode("user_id", table: t),
                                deviceID: try row.decode("device_id", table: t), state: try row.decodeEnum("state", table: t),
                                updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t)))
    }
}
