import E2EECrypto
import Foundation
import GRDB

/// Applies one phase's trust records inside the caller's write transaction
/// (docs/spec/protocol.md §11.5). It fills only what this device has not decided itself: a
/// record against one of its own decisions leaves that decision in place and is reported as a
/// conflict. Provisional key standings (made after a skipped transfer, §11.1) are no decisions
/// and are replaced. A user conflicted at the primary is conflicted here with every listed key,
/// so that no later listing of a single key pins it. `seen_until` is capped at `now` + 45 days.
/// Each decision taken is marked with the primary's device id (`transfer_marks`).
struct TrustImporter {
    /// The cap on a transferred `seen_until`, after `now` (docs/spec/protocol.md §11.5).
    static let seenUntilHorizon: Int64 = 45 * 86_400
    /// How far past `not_after` a certificate stays current (§10.4).
    static let currentGrace: Int64 = 600

    let db: Database
    let ownUserID: String
    let ownDeviceID: String
    let ownUserKey: [UInt8]?
    let source: String
    let now: Int64
    private(set) var report = TrustImportReport()
    private var participants: [String: (record: TrustRecord, users: Set<String>)] = [:]
    private var keys: [String: [ContactKeyRecord]] = [:]
    private var keyOrder: [String] = []

    private var time: StoreTime { StoreTime(microseconds: now * 1_000_000) }

    init(db: Database, ownUserID: String, ownDeviceID: String, ownUserKey: [UInt8]?, source: String, now: Int64) {
        self.db = db
        self.ownUserID = ownUserID
        self.ownDeviceID = ownDeviceID
        self.ownUserKey = ownUserKey
        self.source = source
        self.now = now
    }

    /// Applies `records` (decoded trust records of one phase, in order).
    mutating func apply(_ records: [TrustRecord]) throws {
        for record in records {
            switch record {
            case .ownDevice(let device, let identity, let certificate):
                try ownDevice(record, device.text, identity, certificate)
            case .deviceWithoutCertificate(let user, let device, let identity, let until):
                try deviceWithoutCertificate(record, user.text, device.text, identity, until)
            case .channel(let channel, let kind, let standing):
                try self.channel(record, channel.text, isDM: kind == .dm, standing)
            case .dmParticipant(let channel, let user):
                participants[channel.text, default: (record, [])].users.insert(user.text)
            case .approvedMember(let channel, let user):
                try member(record, [channel.text], user.text, .approved)
            case .hold(let channel, let user, nil, let state):
                let channels = try channel.map { [$0.text] } ?? String.fetchAll(db, sql: "SELECT channel_id FROM channel_pins WHERE is_dm = 0 ORDER BY channel_id")
                try member(record, channels, user.text, state == .declined ? .declined : .held)
            case .hold(let channel, let user, let device?, let state):
                try deviceHold(record, channel?.text, user.text, device.text, state == .declined ? .declined : .held)
            case .contactKey(let key):
                if keys[key.userID.text] == nil { keyOrder.append(key.userID.text) }
                keys[key.userID.text, default: []].append(key)
            }
        }
        for (channel, entry) in participants.sorted(by: { $0.key < $1.key }) { try fixParticipants(entry.record, channel, entry.users) }
        for user in keyOrder { try contactKeys(user, keys[user] ?? []) }
    }

    // MARK: Devices

    private mutating func ownDevice(_ record: TrustRecord, _ device: String, _ identity: IdentityBlob, _ certificate: DeviceCertificate) throws {
        guard device != ownDeviceID else { return }
        guard let ownUserKey, certificate.userKey.rawRepresentation == ownUserKey else { return skip(record, .otherKey) }
        guard let user = try? WireUUID(text: ownUserID), let deviceID = try? WireUUID(text: device),
              certificate.verifies(userID: user, deviceID: deviceID, identity: identity) else { return skip(record, .certificateDoesNotVerify) }
        guard try pinIdentity(record, ownUserID, device, identity) else { return }
        let current = now <= Int64(certificate.notAfter) + Self.currentGrace && Int64(certificate.notAfter) <= now + Self.seenUntilHorizon
        let stored = try ContactKeyStore().loadLinks(userID: ownUserID, db)[device]
        if stored == nil || (stored?.epoch ?? 0, stored?.notAfter ?? 0) < (certificate.epoch, certificate.notAfter) {
            try ContactKeyStore().storeLinks([DeviceLink(userID: ownUserID, deviceID: device, key: ownUserKey, epoch: certificate.epoch,
                                                         notAfter: certificate.notAfter, linked: current, certificate: certificate.bytes)], db)
        }
        try mark(TrustMarkSubject.device(ownUserID, device))
    }

    private mutating func deviceWithoutCertificate(_ record: TrustRecord, _ user: String, _ device: String, _ identity: IdentityBlob,
                                                   _ until: UInt32?) throws {
        if user == ownUserID {
            guard device != ownDeviceID else { return }
            report.legacyOwnDevices.append(TransferredLegacyDevice(deviceID: device, until: until))
        } else if let standing = try ContactKeyStore().loadStanding(userID: user, db), standing.state != .none, try !isProvisional(user) {
            return conflict(record, .userKey)
        }
        if try db.row("SELECT 1 FROM known_devices WHERE user_id = ? AND distrusted = 1", [user]) != nil { return conflict(record, .distrusted) }
        guard try pinIdentity(record, user, device, identity) else { return }
        try db.run("INSERT OR IGNORE INTO known_devices (user_id, device_id, known_since, unconfirmed) VALUES (?, ?, ?, 0)", [user, device, time.microseconds])
        try db.run("UPDATE known_devices SET unconfirmed = 0 WHERE user_id = ? AND device_id = ?", [user, device])
        try mark(TrustMarkSubject.device(user, device))
    }

    /// Pins `identity` for the device unless another blob is pinned here (a conflict: `false`).
    private mutating func pinIdentity(_ record: TrustRecord, _ user: String, _ device: String, _ identity: IdentityBlob) throws -> Bool {
        let pinned = try RemoteIdentityStore().loadIdentity(userID: user, deviceID: device, db)
        if let pinned, pinned.identityBlob != identity.bytes {
            conflict(record, .identity)
            return false
        }
        if pinned == nil {
            try db.run("INSERT INTO remote_identities (user_id, device_id, identity_blob, first_seen_at, verification) VALUES (?, ?, ?, ?, 'unverified')",
                       [user, device, Data(identity.bytes), time.microseconds])
        }
        return true
    }

    // MARK: Channels

    private mutating func channel(_ record: TrustRecord, _ channel: String, isDM: Bool, _ standing: TrustRecord.ChannelStanding) throws {
        let trust = ChannelTrustStore()
        let stored: ChannelStanding = switch standing {
        case .created: .created
        case .accepted, .left: .accepted
        case .request: .request
        case .declined: .declined
        }
        if let pin = try trust.loadPin(channelID: channel, db) {
            guard pin.isDM == isDM else { return conflict(record, .channelKind) }
            let left = try db.row("SELECT 1 FROM departed_channels WHERE channel_id = ? AND rejoined_at IS NULL", [channel]) != nil
            var mine: TrustRecord.ChannelStanding = switch pin.standing {
            case .created: .created
            case .accepted: .accepted
            case .request: .request
            case .declined: .declined
            }
            if left { mine = .left }
            if mine == standing { return }
            // A request this device has not answered is no decision.
            guard mine == .request else { return conflict(record, .channelStanding) }
            try trust.storeStanding(stored, channelID: channel, db)
        } else {
            try trust.pin(ChannelPin(channelID: channel, isDM: isDM, standing: stored, pinnedAt: time), db)
        }
        if standing == .left {
            try db.run("INSERT OR REPLACE INTO departed_channels (channel_id, left_at, rejoined_at) VALUES (?, 0, NULL)", [channel])
        }
        try mark(TrustMarkSubject.channel(channel))
    }

    private mutating func fixParticipants(_ record: TrustRecord, _ channel: String, _ users: Set<String>) throws {
        let recipients = RecipientStore()
        let fixed = try recipients.loadParticipants(channelID: channel, db)
        if fixed == users { return }
        guard fixed.isEmpty, try recipients.fixParticipants(channelID: channel, userIDs: users, db) else { return conflict(record, .participants) }
        try mark(TrustMarkSubject.participants(channel))
    }

    /// A member approved, held or declined in `channels`: a hold of this device, or no standing,
    /// gives way; its approval or decline stands (a conflict when the primary declined or
    /// approved instead; a primary's hold is no decision and changes nothing).
    private mutating func member(_ record: TrustRecord, _ channels: [String], _ user: String, _ state: MemberState) throws {
        let trust = ChannelTrustStore()
        for channel in channels {
            let mine = try trust.loadMembers(channelID: channel, db)[user]?.state
            switch mine {
            case state?: continue
            case .approved?, .declined?:
                if state != .held { conflict(record, .memberStanding) }
                continue
            case nil, .held?, .gone?:
                try trust.storeMembers([MemberStanding(channelID: channel, userID: user, state: state)], at: time, db)
                try mark(TrustMarkSubject.member(channel, user))
            }
        }
    }

    /// A device held or declined in a channel (`nil`: every channel where this device has a
    /// standing for it), with the same precedence as ``member(_:_:_:_:)``.
    private mutating func deviceHold(_ record: TrustRecord, _ channel: String?, _ user: String, _ device: String, _ state: RecipientState) throws {
        let recipients = RecipientStore()
        let mine = try recipients.loadRecipients(deviceID: device, db).filter { channel == nil || $0.channelID == channel }
        let channels = channel.map { [$0] } ?? mine.map(\.channelID)
        for target in channels {
            switch mine.first(where: { $0.channelID == target })?.state {
            case state?: continue
            case .recipient?, .declined?:
                if state == .declined { conflict(record, .deviceStanding) }
                continue
            case nil, .held?, .removed?:
                try recipients.storeRecipients([ChannelRecipient(channelID: target, userID: user, deviceID: device, state: state, updatedAt: time)], db)
                try mark(TrustMarkSubject.hold(target, user, device))
            }
        }
    }

    // MARK: Contact keys

    /// One user's keys: each record's certificate must verify for the user, device and blob under
    /// the record's key, at the `E_max` it claims; the rest are refused. The user's standing is
    /// conflicted when any record says so, else pinned to the pinned (or verified) key, else
    /// *none*. A standing this device decided itself stands.
    private mutating func contactKeys(_ user: String, _ records: [ContactKeyRecord]) throws {
        let valid = records.filter { record in
            let wrapped = TrustRecord.contactKey(record)
            guard record.certificate.userKey == record.userKey else { skip(wrapped, .otherKey); return false }
            guard record.certificate.verifies(userID: record.userID, deviceID: record.deviceID, identity: record.identity) else {
                skip(wrapped, .certificateDoesNotVerify)
                return false
            }
            guard record.certificate.epoch == record.highestEpoch else { skip(wrapped, .epochNotProven); return false }
            return true
        }
        guard let first = valid.first else { return }
        let store = ContactKeyStore()
        let conflicted = valid.contains(where: \.userConflicted)
        let pinned = conflicted ? nil : valid.first { $0.state == .pinned || $0.state == .verified }?.userKey.rawRepresentation
        let theirs = ContactKeyStanding(userID: user, state: conflicted ? .conflicted : pinned == nil ? .none : .pinned, pinnedKey: pinned)
        let provisional = try isProvisional(user)
        let mine = try store.loadStanding(userID: user, db)
        if let mine, !provisional, mine.state != theirs.state || mine.pinnedKey != theirs.pinnedKey {
            return conflict(.contactKey(first), .userKey)
        }
        let cap = UInt32(clamping: now + Self.seenUntilHorizon)
        var merged = try store.loadKeys(userID: user, db)
        for record in valid {
            let key = record.userKey.rawRepresentation
            let state: ContactKey.State = switch record.state {
            case .pinned: .pinned
            case .verified: .verified
            case .replaced: .replaced
            case .declined: .declined
            case .listed: .listed
            }
            let seenUntil = min(record.seenUntil, cap)
            if let index = merged.firstIndex(where: { $0.key == key }) {
                merged[index].state = mine == nil || provisional ? state : merged[index].state
                merged[index].maxEpoch = max(merged[index].maxEpoch, record.highestEpoch)
                merged[index].seenUntil = min(max(merged[index].seenUntil, seenUntil), cap)
                merged[index].seenAt = max(merged[index].seenAt, Int64(record.seenAt))
            } else {
                merged.append(ContactKey(userID: user, key: key, state: state, maxEpoch: record.highestEpoch, seenUntil: seenUntil,
                                         seenAt: Int64(record.seenAt), firstListedAt: now))
            }
        }
        // A provisional pin the primary did not make is only a listed key now.
        let transferred = Set(valid.map(\.userKey.rawRepresentation))
        for index in merged.indices where !transferred.contains(merged[index].key) && merged[index].state.isPinned && (mine == nil || provisional) {
            merged[index].state = .listed
        }
        try store.replaceKeys(userID: user, with: merged, db)
        try store.storeStanding(ContactKeyStanding(userID: user, state: theirs.state, pinnedKey: theirs.pinnedKey,
                                                   pendingChange: provisional ? nil : mine?.pendingChange, otherKeySurfacedAt: mine?.otherKeySurfacedAt), db)
        try db.run("DELETE FROM provisional_pins WHERE user_id = ?", [user])
        let links = try store.loadLinks(userID: user, db)
        for record in valid where links[record.deviceID.text] == nil {
            guard try pinIdentity(.contactKey(record), user, record.deviceID.text, record.identity) else { continue }
            try store.storeLinks([DeviceLink(userID: user, deviceID: record.deviceID.text, key: record.userKey.rawRepresentation,
                                             epoch: record.certificate.epoch, notAfter: record.certificate.notAfter, linked: false,
                                             certificate: record.certificate.bytes)], db)
        }
        report.applied += valid.count - 1
        try mark(TrustMarkSubject.key(user))
    }

    private func isProvisional(_ user: String) throws -> Bool {
        try db.row("SELECT 1 FROM provisional_pins WHERE user_id = ?", [user]) != nil
    }

    // MARK: Report

    private mutating func mark(_ subject: String) throws {
        try db.run("INSERT OR REPLACE INTO transfer_marks (subject, source_device_id, marked_at) VALUES (?, ?, ?)", [subject, source, now])
        report.applied += 1
    }

    private mutating func conflict(_ record: TrustRecord, _ reason: TrustImportConflict.Reason) {
        report.conflicts.append(TrustImportConflict(record: record, reason: reason))
    }

    private mutating func skip(_ record: TrustRecord, _ reason: TrustImportSkip.Reason) {
        report.skipped.append(TrustImportSkip(record: record, reason: reason))
    }
}
