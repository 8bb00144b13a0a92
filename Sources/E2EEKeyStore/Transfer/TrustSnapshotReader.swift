import E2EECrypto
import Foundation
import GRDB

/// Reads the trust records of a snapshot (docs/spec/protocol.md §11.2, §11.3) from one
/// consistent read of the store. Only decisions and the public values that prove them are read:
/// never private keys, sessions, sender keys, message keys, ciphertexts, pending or refused rows,
/// the outbox or tokens. Every query is ordered by ids, so the same store gives the same records
/// (and the same digest).
struct TrustSnapshotReader {
    let db: Database
    private(set) var omitted: [TrustSnapshotOmission] = []

    init(_ db: Database) {
        self.db = db
    }

    /// Every record, in the order ``TrustSnapshot/records`` names.
    mutating func read() throws -> TrustSnapshot {
        let account = try db.row("SELECT user_id, device_id FROM account WHERE id = 1")
        let ownUser: String? = try account?.decode("user_id", table: "account")
        let ownDevice: String? = try account?.decode("device_id", table: "account")
        var records: [TrustRecord] = []
        if let ownUser, let ownDevice { records += try ownDevices(user: ownUser, thisDevice: ownDevice) }
        records += try channels()
        records += try pairs("SELECT channel_id, user_id FROM dm_participants ORDER BY channel_id, user_id", table: "dm_participants") {
            .dmParticipant(channelID: $0, userID: $1)
        }
        records += try pairs("SELECT channel_id, user_id FROM channel_member_standings WHERE state = 'approved' ORDER BY channel_id, user_id",
                             table: "channel_member_standings") { .approvedMember(channelID: $0, userID: $1) }
        records += try holds()
        records += try contactKeys(ownUser: ownUser)
        records += try contactDevices(ownUser: ownUser)
        return TrustSnapshot(records: records, omitted: omitted)
    }

    // MARK: Own devices

    private mutating func ownDevices(user: String, thisDevice: String) throws -> [TrustRecord] {
        let ids = try String.fetchAll(db, sql: """
            SELECT device_id FROM known_devices WHERE user_id = ? AND unconfirmed = 0 AND distrusted = 0
            UNION SELECT device_id FROM device_links WHERE user_id = ? AND linked = 1
            UNION SELECT ?
            ORDER BY 1
            """, arguments: [user, user, thisDevice])
        var records: [TrustRecord] = []
        for device in ids {
            guard let userID = uuid(user, TrustMarkSubject.device(user, device)), let deviceID = uuid(device, TrustMarkSubject.device(user, device)) else { continue }
            let identity: IdentityBlob?
            let certificate: [UInt8]?
            if device == thisDevice {
                identity = try ownIdentity()
                certificate = try Data.fetchOne(db, sql: "SELECT certificate FROM published_certificate WHERE id = 1").map { [UInt8]($0) }
            } else {
                identity = try pinnedIdentity(user: user, device: device)
                certificate = try Data.fetchOne(db, sql: "SELECT certificate FROM device_links WHERE user_id = ? AND device_id = ?",
                                                arguments: [user, device]).map { [UInt8]($0) }
            }
            guard let identity else {
                omitted.append(TrustSnapshotOmission(subject: TrustMarkSubject.device(user, device), reason: .noIdentity))
                continue
            }
            if let certificate, let parsed = try? DeviceCertificate(bytes: certificate), !parsed.isZero {
                records.append(.ownDevice(deviceID: deviceID, identity: identity, certificate: parsed))
            } else {
                // Trusted under text 1.2 without a certificate: a legacy own device carries its lapse date (store v20).
                let lapsesAt = try Int64.fetchOne(db, sql: "SELECT lapses_at FROM legacy_own_devices WHERE device_id = ?", arguments: [device])
                records.append(.deviceWithoutCertificate(userID: userID, deviceID: deviceID, identity: identity,
                                                         until: lapsesAt.map { UInt32(clamping: $0) }))
            }
        }
        return records
    }

    private func ownIdentity() throws -> IdentityBlob? {
        guard let row = try db.row("SELECT identity_public, signing_public FROM identity_keys WHERE id = 1") else { return nil }
        let dh: Data = try row.decode("identity_public", table: "identity_keys")
        let signing: Data = try row.decode("signing_public", table: "identity_keys")
        return try? IdentityBlob(bytes: [IdentityBlob.version] + [UInt8](dh) + [UInt8](signing))
    }

    private func pinnedIdentity(user: String, device: String) throws -> IdentityBlob? {
        try Data.fetchOne(db, sql: "SELECT identity_blob FROM remote_identities WHERE user_id = ? AND device_id = ?", arguments: [user, device])
            .flatMap { try? IdentityBlob(bytes: [UInt8]($0)) }
    }

    // MARK: Channels

    private mutating func channels() throws -> [TrustRecord] {
        try db.rows("""
            SELECT p.channel_id, p.is_dm, p.standing,
                EXISTS (SELECT 1 FROM departed_channels d WHERE d.channel_id = p.channel_id AND d.rejoined_at IS NULL) AS left_channel
            FROM channel_pins p ORDER BY p.channel_id
            """).compactMap { row in
            let t = "channel_pins"
            let id: String = try row.decode("channel_id", table: t)
            guard let channelID = uuid(id, TrustMarkSubject.channel(id)) else { return nil }
            let standing: ChannelStanding = try row.decodeEnum("standing", table: t)
            let left: Bool = try row.decode("left_channel", table: t)
            var wire: TrustRecord.ChannelStanding = switch standing {
            case .created: .created
            case .accepted: .accepted
            case .request: .request
            case .declined: .declined
            }
            if left { wire = .left }
            return .channel(channelID: channelID, kind: try row.decode("is_dm", table: t) ? .dm : .group, standing: wire)
        }
    }

    private mutating func pairs(_ sql: String, table: String, _ make: (WireUUID, WireUUID) -> TrustRecord) throws -> [TrustRecord] {
        try db.rows(sql).compactMap { row in
            let channel: String = try row.decode("channel_id", table: table), user: String = try row.decode("user_id", table: table)
            let subject = TrustMarkSubject.member(channel, user)
            guard let channelID = uuid(channel, subject), let userID = uuid(user, subject) else { return nil }
            return make(channelID, userID)
        }
    }

    /// Member holds and declines (`channel_member_standings`) and device ones (`channel_recipients`),
    /// merged in (channel, user, device) order, a member's before its devices'. The store keeps
    /// no account-wide hold: every record names its channel.
    private mutating func holds() throws -> [TrustRecord] {
        let rows = try db.rows("""
            SELECT channel_id, user_id, '' AS device_id, state FROM channel_member_standings WHERE state IN ('held', 'declined')
            UNION ALL
            SELECT channel_id, user_id, device_id, state FROM channel_recipients WHERE state IN ('held', 'declined')
            ORDER BY channel_id, user_id, device_id
            """)
        return try rows.compactMap { row in
            let t = "channel_recipients"
            let channel: String = try row.decode("channel_id", table: t), user: String = try row.decode("user_id", table: t)
            let device: String = try row.decode("device_id", table: t)
            let subject = TrustMarkSubject.hold(channel, user, device.isEmpty ? nil : device)
            guard let channelID = uuid(channel, subject), let userID = uuid(user, subject) else { return nil }
            var deviceID: WireUUID?
            if !device.isEmpty {
                guard let parsed = uuid(device, subject) else { return nil }
                deviceID = parsed
            }
            let state: String = try row.decode("state", table: t)
            return .hold(channelID: channelID, userID: userID, deviceID: deviceID, state: state == "declined" ? .declined : .held)
        }
    }

    // MARK: Contacts

    /// Every key of every contact with a key standing, each with the stored certificate of the
    /// highest epoch under it (its `E_max` is that epoch: what the certificate proves).
    private mutating func contactKeys(ownUser: String?) throws -> [TrustRecord] {
        let store = ContactKeyStore()
        var records: [TrustRecord] = []
        let users = try String.fetchAll(db, sql: "SELECT user_id FROM contact_key_standings WHERE user_id != ? ORDER BY user_id",
                                        arguments: [ownUser ?? ""])
        for user in users {
            guard let standing = try store.loadStanding(userID: user, db), let userID = uuid(user, TrustMarkSubject.key(user)) else { continue }
            let keys = try store.loadKeys(userID: user, db).sorted { $0.key.lexicographicallyPrecedes($1.key) }
            for key in keys {
                guard let proof = try proof(user: user, key: key.key) else {
                    omitted.append(TrustSnapshotOmission(subject: TrustMarkSubject.key(user), reason: .keyWithoutProof))
                    continue
                }
                let state: ContactKeyRecord.State = switch key.state {
                case .listed: .listed
                case .pinned: .pinned
                case .replaced: .replaced
                case .declined: .declined
                case .verified: .verified
                }
                records.append(.contactKey(ContactKeyRecord(
                    userID: userID, userKey: proof.certificate.userKey, state: state, userConflicted: standing.state == .conflicted,
                    seenUntil: key.seenUntil, seenAt: UInt32(clamping: key.seenAt), highestEpoch: proof.certificate.epoch,
                    deviceID: proof.deviceID, identity: proof.identity, certificate: proof.certificate)))
            }
        }
        return records
    }

    private func proof(user: String, key: [UInt8]) throws -> (deviceID: WireUUID, identity: IdentityBlob, certificate: DeviceCertificate)? {
        let rows = try db.rows("""
            SELECT device_id, certificate FROM device_links WHERE user_id = ? AND user_key = ? AND certificate IS NOT NULL
            ORDER BY epoch DESC, device_id
            """, [user, Data(key)])
        for row in rows {
            let device: String = try row.decode("device_id", table: "device_links")
            let bytes: Data = try row.decode("certificate", table: "device_links")
            guard let deviceID = try? WireUUID(text: device), let identity = try pinnedIdentity(user: user, device: device),
                  let certificate = try? DeviceCertificate(bytes: [UInt8](bytes)), !certificate.isZero,
                  certificate.userKey.rawRepresentation == key else { continue }
            return (deviceID, identity, certificate)
        }
        return nil
    }

    /// Contacts' devices trusted under text 1.2 (known, confirmed, not distrusted) of users with
    /// no key standing or *none*.
    private mutating func contactDevices(ownUser: String?) throws -> [TrustRecord] {
        try db.rows("""
            SELECT k.user_id, k.device_id FROM known_devices k
            WHERE k.user_id != ? AND k.unconfirmed = 0 AND k.distrusted = 0
                AND NOT EXISTS (SELECT 1 FROM contact_key_standings s WHERE s.user_id = k.user_id AND s.state != 'none')
            ORDER BY k.user_id, k.device_id
            """, [ownUser ?? ""]).compactMap { row in
            let user: String = try row.decode("user_id", table: "known_devices"), device: String = try row.decode("device_id", table: "known_devices")
            let subject = TrustMarkSubject.device(user, device)
            guard let userID = uuid(user, subject), let deviceID = uuid(device, subject) else { return nil }
            guard let identity = try pinnedIdentity(user: user, device: device) else {
                omitted.append(TrustSnapshotOmission(subject: subject, reason: .noIdentity))
                return nil
            }
            return .deviceWithoutCertificate(userID: userID, deviceID: deviceID, identity: identity, until: nil)
        }
    }

    /// `text` as a wire id; an omission (`subject`, ``TrustSnapshotOmission/Reason/idNotUUID``) when it is not one.
    private mutating func uuid(_ text: String, _ subject: String) -> WireUUID? {
        if let id = try? WireUUID(text: text) { return id }
        omitted.append(TrustSnapshotOmission(subject: subject, reason: .idNotUUID))
        return nil
    }
}
