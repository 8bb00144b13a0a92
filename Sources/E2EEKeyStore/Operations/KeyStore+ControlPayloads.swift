import E2EECrypto
import GRDB

/// What a received batch does with control payloads (docs/spec/protocol.md §5.15, §6.7), inside
/// ``KeyStore/storeReceiveBatch(_:)``'s transaction: tombstones erase their sender's message,
/// announcements of this account's trusted devices count as this device's own decision.
extension KeyStore {
    /// Whether a sending device counts as trusted in `channelID` (docs/spec/protocol.md §5.12,
    /// §6.7): the device is held or declined nowhere (a decision about a device covers every
    /// channel, so a device held in one DM is held in every group too); it is not an unknown
    /// device of a user this device knows (one outside the devices known as that user's —
    /// trusted at first contact, or approved since; for our own user, a login listing's device
    /// only once confirmed — while the user has any: a device the server
    /// added is held from its discovery, wherever it first speaks); and its user is neither held
    /// nor declined in this channel. For our own user this is exactly the rule of
    /// ``isTrustedOwnDevice(userID:deviceID:channelID:_:)``. A tombstone erases, an announcement
    /// prompts or applies, a `with` fixes a DM, and a message shows unflagged only from such a device.
    package func isTrustedSender(channelID: String, userID: String, deviceID: String, _ db: Database) throws -> Bool {
        // A user with a user key (docs/spec/protocol.md §10.7): only a device linked under the
        // pinned key speaks for them; a conflicted user's devices none.
        if let keyState = try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM contact_key_standings WHERE user_id = ?"), arguments: [userID]),
           keyState != ContactKeyStanding.State.none.rawValue {
            let linked = try db.row("SELECT 1 FROM device_links WHERE user_id = ? AND device_id = ? AND linked = 1", [userID, deviceID]) != nil
            guard linked, keyState == ContactKeyStanding.State.pinned.rawValue else { return false }
            return try db.row(
                "SELECT 1 FROM channel_member_standings WHERE channel_id = ? AND user_id = ? AND state IN ('held', 'declined')",
                [channelID, userID]) == nil
        }
        let heldDevice = try db.row(
            "SELECT 1 FROM channel_recipients WHERE device_id = ? AND state IN ('held', 'declined') LIMIT 1", [deviceID]) != nil
        guard !heldDevice else { return false }
        let knownUser = try db.row("SELECT 1 FROM known_devices WHERE user_id = ? LIMIT 1", [userID]) != nil
        if knownUser, try db.row("SELECT 1 FROM known_devices WHERE user_id = ? AND device_id = ? AND unconfirmed = 0 AND distrusted = 0", [userID, deviceID]) == nil {
            return false
        }
        return try db.row(
            "SELECT 1 FROM channel_member_standings WHERE channel_id = ? AND user_id = ? AND state IN ('held', 'declined')",
            [channelID, userID]) == nil
    }

    /// Whether `deviceID` is a device of this account that this device trusts: listed when it
    /// registered or logged in (and, for a login's listing, confirmed by the app), or approved
    /// since — and not held or declined anywhere.
    package func isTrustedOwnDevice(userID: String, deviceID: String, channelID: String, _ db: Database) throws -> Bool {
        guard try ownUserID(db) == userID,
              try db.row("SELECT 1 FROM known_devices WHERE user_id = ? AND device_id = ? AND unconfirmed = 0 AND distrusted = 0", [userID, deviceID]) != nil
        else { return false }
        return try isTrustedSender(channelID: channelID, userID: userID, deviceID: deviceID, db)
    }

    /// This account's user id (nil before registration).
    func ownUserID(_ db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM account WHERE id = 1"))
    }

    /// The server id of the message a tombstone names: same channel, same sender user, that
    /// payload id, still a readable timeline message (not yet erased).
    func tombstoneTarget(channelID: String, senderUserID: String, payloadID: String, _ db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: Self.tombstoneTargetSQL),
                            arguments: [StoreSchema.payloadKey(senderUserID: senderUserID, payloadID: payloadID), senderUserID, payloadID, channelID])
    }

    /// The query of ``tombstoneTarget(channelID:senderUserID:payloadID:_:)``: a seek of
    /// `timeline_payload_key` (arguments: the pair's key, the sender user, the payload id, the channel).
    static let tombstoneTargetSQL = """
        SELECT message_id FROM timeline
        WHERE payload_key = ? AND sender_user_id = ? AND payload_id = ? AND channel_id = ? AND kind = 'message' AND state != 'deleted'
        """

    /// Whether a trusted tombstone for (channel, sender user, payload id) is already stored.
    func hasTombstone(channelID: String, senderUserID: String, payloadID: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: Self.tombstoneSQL), arguments: [channelID, senderUserID, payloadID]) ?? false
    }

    /// The query of ``hasTombstone(channelID:senderUserID:payloadID:_:)``: a seek of `timeline_tombstones`.
    static let tombstoneSQL = "SELECT 1 FROM timeline WHERE channel_id = ? AND sender_user_id = ? AND delete_of = ? LIMIT 1"

    /// Erases a message: plaintext wiped, state `deleted` (its row stays in the dedupe set, and a
    /// later copy or edit never brings it back).
    func erase(messageID: String, _ db: Database) throws {
        try pendingStore.removePending(messageID: messageID, db)
        try timelineStore.markDeleted(id: messageID, db)
    }

    /// Whether every id an `approved` or `declined` announcement names is one this device has
    /// a standing for — a device in any channel, or a member of `channelID` (held, approved,
    /// declined or gone). `added` and `accepted` name users that may be new here. Our own
    /// device's announcement naming anyone unknown is refused whole: it changes nothing.
    func namesKnownParties(_ announcement: PayloadAnnouncement, channelID: String, _ db: Database) throws -> Bool {
        guard announcement.kind == .approved || announcement.kind == .declined else { return true }
        let members = try channelTrustStore.loadMembers(channelID: channelID, db)
        for id in announcement.ids.map(\.text) where members[id] == nil {
            guard try db.row("SELECT 1 FROM channel_recipients WHERE device_id = ? LIMIT 1", [id]) != nil else { return false }
        }
        return true
    }

    /// The ids an `approved` or `declined` announcement names that are devices: ones this device
    /// has a standing for in some channel (the rule ``applyOwnAnnouncement(_:channelID:ownUserID:at:_:)``
    /// applies). `added` and `accepted` name users only.
    func devicesNamed(by announcement: PayloadAnnouncement, _ db: Database) throws -> Set<String> {
        guard announcement.kind == .approved || announcement.kind == .declined else { return [] }
        var devices: Set<String> = []
        for id in announcement.ids.map(\.text)
        where try db.row("SELECT 1 FROM channel_recipients WHERE device_id = ? LIMIT 1", [id]) != nil {
            devices.insert(id)
        }
        return devices
    }

    /// Applies an announcement from a trusted device of this account as this device's own
    /// decision in `channelID`: `added` and `approved` users become approved members, approved
    /// devices recipients in every channel that holds them; `declined` does the opposite;
    /// `accepted` accepts the channel (a request, or declined here: the later decision counts)
    /// with the members it names. An id that names a device this device has a standing for is a
    /// device; any other id is a user. Decisions count in the order they were made, not the order
    /// they arrive: a member or device whose standing was set by a decision made at or after
    /// `decidedAt` (the announcement's signed `ts`, Unix milliseconds; a local decision is
    /// stamped with this device's clock) keeps it, so an old approval the server shows after a
    /// later decline approves nobody.
    func applyOwnAnnouncement(_ announcement: PayloadAnnouncement, channelID: String, ownUserID: String, decidedAt: Int64?,
                              at time: StoreTime, _ db: Database) throws {
        var members: [MemberStanding] = []
        for id in announcement.ids.map(\.text) where id != ownUserID {
            let isDevice = try !recipientStore.loadRecipients(deviceID: id, db).isEmpty
            let decided = isDevice ? try recipientStore.deviceDecidedAt(id, db)
                                   : try channelTrustStore.memberDecidedAt(channelID: channelID, userID: id, db)
            if let decided, decided >= (decidedAt ?? .min) { continue }
            switch announcement.kind {
            case .approved where isDevice:
                _ = try recipientStore.approveDevice(id, at: time, decidedAt: decidedAt, db)
            case .declined where isDevice:
                _ = try recipientStore.declineDevice(id, at: time, decidedAt: decidedAt, db)
            case .declined:
                members.append(MemberStanding(channelID: channelID, userID: id, state: .declined))
            case .added, .approved, .accepted:
                members.append(MemberStanding(channelID: channelID, userID: id, state: .approved))
            }
        }
        try channelTrustStore.storeMembers(members, at: time, decidedAt: decidedAt, db)
        let standing = try channelTrustStore.loadPin(channelID: channelID, db)?.standing
        if announcement.kind == .accepted, standing == .request || standing == .declined {
            try channelTrustStore.storeStanding(.accepted, channelID: channelID, db)
        }
    }
}
