import GRDB

/// What this device decided about its channels (schema `v11`): each channel's
/// pinned kind and standing, and each group's member standings. Public data only, stored in
/// clear; nothing here is removed when the server stops listing a channel.
package struct ChannelTrustStore: Sendable {
    /// A store.
    public init() {}

    /// The pin of `channelID`, if this device has learned it.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadPin(channelID: String, _ db: Database) throws -> ChannelPin? {
        try db.row("SELECT * FROM channel_pins WHERE channel_id = ?", [channelID]).map { row in
            let fetched: Int64? = try row.decodeIfPresent("contradicted_at", table: "channel_pins")
            return ChannelPin(channelID: try row.decode("channel_id", table: "channel_pins"), isDM: try row.decode("is_dm", table: "channel_pins"),
                              standing: try row.decodeEnum("standing", table: "channel_pins"),
                              pinnedAt: StoreTime(microseconds: try row.decode("pinned_at", table: "channel_pins")),
                              contradictedAt: fetched.map(StoreTime.init(microseconds:)))
        }
    }

    /// Every pin in `standing`, oldest first.
    /// - Throws: as ``loadPin(channelID:_:)``.
    public func loadPins(standing: ChannelStanding, _ db: Database) throws -> [ChannelPin] {
        let ids: [String] = try db.rows("SELECT channel_id FROM channel_pins WHERE standing = ? ORDER BY pinned_at, channel_id",
                                        [standing.rawValue]).map { try $0.decode("channel_id", table: "channel_pins") }
        return try ids.compactMap { try loadPin(channelID: $0, db) }
    }

    /// Pins a channel the first time this device learns it; does nothing (and returns the
    /// existing pin) when it is pinned already.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    public func pin(_ pin: ChannelPin, _ db: Database) throws -> ChannelPin {
        try db.run("INSERT OR IGNORE INTO channel_pins (channel_id, is_dm, encryption_type, standing, pinned_at) VALUES (?, ?, ?, ?, ?)",
                   [pin.channelID, pin.isDM, pin.encryptionType, pin.standing.rawValue, pin.pinnedAt.microseconds])
        return try loadPin(channelID: pin.channelID, db) ?? pin
    }

    /// Sets this device's standing in a pinned channel.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeStanding(_ standing: ChannelStanding, channelID: String, _ db: Database) throws {
        try db.run("UPDATE channel_pins SET standing = ? WHERE channel_id = ?", [standing.rawValue, channelID])
    }

    /// Records that a listing contradicted the pinned kind; returns whether this is the first time.
    /// - Throws: GRDB's `DatabaseError`.
    public func markContradicted(channelID: String, at time: StoreTime, _ db: Database) throws -> Bool {
        try db.run("UPDATE channel_pins SET contradicted_at = ? WHERE channel_id = ? AND contradicted_at IS NULL", [time.microseconds, channelID])
        return db.changesCount > 0
    }

    /// A channel as this device stores it, learned once (docs/spec/protocol.md §5): pinned the
    /// first time (from `createdAsDM`, the kind this device asked for when it created or opened
    /// it, else from the listing when it names one of the two valid pairs — standing `request`);
    /// afterwards the pin's kind replaces the listed one and a difference is recorded. Opening a
    /// request with the pinned kind accepts it. Returns the record to store and whether a
    /// contradiction was seen for the first time.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func learn(_ listed: ChannelRecord, createdAsDM: Bool?, at time: StoreTime,
                      _ db: Database) throws -> (record: ChannelRecord, firstContradiction: Bool) {
        var record = listed
        let listedKind: Bool? = switch (listed.isDM, listed.encryptionType) {
        case (true, "x3dh"): true
        case (false, "sender_keys"): false
        default: nil
        }
        var contradiction = false
        if let pin = try loadPin(channelID: record.id, db) {
            if listedKind != pin.isDM || (createdAsDM.map { $0 != pin.isDM } ?? false) {
                contradiction = try markContradicted(channelID: record.id, at: time, db)
            }
            if createdAsDM == pin.isDM, !pin.standing.isOpen { try storeStanding(.accepted, channelID: record.id, db) }
            record.isDM = pin.isDM
            record.encryptionType = pin.encryptionType
        } else if let isDM = createdAsDM ?? listedKind {
            let pin = try self.pin(ChannelPin(channelID: record.id, isDM: isDM, standing: createdAsDM == nil ? .request : .created, pinnedAt: time), db)
            if createdAsDM != nil, listedKind != isDM { contradiction = try markContradicted(channelID: record.id, at: time, db) }
            record.isDM = pin.isDM
            record.encryptionType = pin.encryptionType
        }
        return (record, contradiction)
    }

    /// Every member standing of `channelID`, by user.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadMembers(channelID: String, _ db: Database) throws -> [String: MemberStanding] {
        var standings: [String: MemberStanding] = [:]
        for row in try db.rows("SELECT * FROM channel_member_standings WHERE channel_id = ?", [channelID]) {
            let t = "channel_member_standings"
            let missing: Int64? = try row.decodeIfPresent("missing_since", table: t)
            let standing = MemberStanding(channelID: channelID, userID: try row.decode("user_id", table: t), state: try row.decodeEnum("state", table: t),
                                          missingSince: missing.map(StoreTime.init(microseconds:)))
            standings[standing.userID] = standing
        }
        return standings
    }

    /// Every member standing in `state`, across channels.
    /// - Throws: as ``loadMembers(channelID:_:)``.
    public func loadMembers(state: MemberState, _ db: Database) throws -> [MemberStanding] {
        try db.rows("SELECT channel_id, user_id FROM channel_member_standings WHERE state = ? ORDER BY channel_id, user_id", [state.rawValue])
            .map { MemberStanding(channelID: try $0.decode("channel_id", table: "channel_member_standings"),
                                  userID: try $0.decode("user_id", table: "channel_member_standings"), state: state) }
    }

    /// Inserts or replaces member standings. `decidedAt` (Unix milliseconds) marks them as a
    /// decision made then — this device's own, or one announced by our own device — which an
    /// older announced decision will not undo (``memberDecidedAt(channelID:userID:_:)``); `nil`
    /// (the comparison's holds, gone members, absences) keeps the time of the last decision.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeMembers(_ standings: [MemberStanding], at time: StoreTime, decidedAt: Int64? = nil, _ db: Database) throws {
        for standing in standings {
            try db.run("""
                INSERT INTO channel_member_standings (channel_id, user_id, state, missing_since, updated_at, decided_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(channel_id, user_id) DO UPDATE SET state = excluded.state, missing_since = excluded.missing_since,
                    updated_at = excluded.updated_at, decided_at = COALESCE(excluded.decided_at, channel_member_standings.decided_at)
                """, [standing.channelID, standing.userID, standing.state.rawValue, standing.missingSince?.microseconds, time.microseconds,
                      decidedAt])
        }
    }

    /// Every channel this device sends in (created, opened or accepted here), sorted.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadOpenChannelIDs(_ db: Database) throws -> [String] {
        try db.rows("SELECT channel_id FROM channel_pins WHERE standing IN ('created', 'accepted') ORDER BY channel_id").map {
            try $0.decode("channel_id", table: "channel_pins")
        }
    }

    /// When the last decision about `userID` in `channelID` was made (Unix milliseconds; `nil`
    /// when none was recorded).
    /// - Throws: GRDB's `DatabaseError`.
    public func memberDecidedAt(channelID: String, userID: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT decided_at FROM channel_member_standings WHERE channel_id = ? AND user_id = ?",
                           arguments: [channelID, userID])
    }

    /// A DM request's candidate participant: the sender of the earliest message (by
    /// `(created_at, message id)`) addressed to this device in it — decrypted, or waiting for
    /// the request to be accepted (`waiting_for = 'request:<channel>'`) — never `ownUserID` and
    /// never a user declined as its candidate; `nil` while there is none.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadCandidate(channelID: String, ownUserID: String, _ db: Database) throws -> String? {
        try loadCandidates(channelID: channelID, ownUserID: ownUserID, limit: 1, db).first?.userID
    }
}
