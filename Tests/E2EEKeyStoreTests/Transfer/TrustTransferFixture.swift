import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB

/// Two stores on real SQLite files — the primary P and a new device N of the same user — and
/// helpers to give P trust decisions and to carry its trust part to N as the wire does.
struct TrustTransferFixture {
    static let now: Int64 = 1_800_000_000
    static var inTwentyDays: UInt32 { UInt32(now + 20 * 86_400) }

    /// A device of some user: its id and identity.
    struct Device {
        let user: String
        let id: String
        let identity = E2EECrypto.IdentityKeyPair()
        var blob: IdentityBlob { identity.publicIdentity }
        var wireUser: WireUUID { Self.wire(user) }
        var wireID: WireUUID { Self.wire(id) }

        static func wire(_ text: String) -> WireUUID { (try? WireUUID(text: text)) ?? wire(text) }
    }

    static func id() -> String { UUID().uuidString.lowercased() }

    let alice = Self.id(), bob = Self.id(), carol = Self.id(), erin = Self.id()
    let userKey = Ed25519.PrivateKey()
    let primary: Device, newDevice: Device, linked: Device, legacy: Device
    /// When the legacy own device lapses (unix seconds).
    static let legacyLapse: Int64 = 1_800_864_000
    let bobPhone: Device, bobTablet: Device, carolPhone: Device, carolStolen: Device, erinPhone: Device
    let carolKey = Ed25519.PrivateKey(), thiefKey = Ed25519.PrivateKey(), erinKey = Ed25519.PrivateKey()
    let dm = Self.id(), group = Self.id(), request = Self.id(), declined = Self.id(), left = Self.id()
    let directory = try! TemporaryDirectory()

    init() {
        primary = Device(user: alice, id: Self.id())
        newDevice = Device(user: alice, id: Self.id())
        linked = Device(user: alice, id: Self.id())
        legacy = Device(user: alice, id: Self.id())
        bobPhone = Device(user: bob, id: Self.id())
        bobTablet = Device(user: bob, id: Self.id())
        carolPhone = Device(user: carol, id: Self.id())
        carolStolen = Device(user: carol, id: Self.id())
        erinPhone = Device(user: erin, id: Self.id())
    }

    func certificate(_ device: Device, by key: Ed25519.PrivateKey, epoch: UInt32 = 1, notAfter: UInt32? = nil) throws -> DeviceCertificate {
        try DeviceCertificate.issue(by: key, userID: device.wireUser, deviceID: device.wireID, identity: device.blob, epoch: epoch,
                                    notAfter: notAfter ?? Self.inTwentyDays)
    }

    /// A store on its own file with `device`'s account and identity keys.
    func openStore(_ name: String, as device: Device) async throws -> KeyStore {
        let store = try KeyStore.open(at: directory.url.appendingPathComponent("\(name).sqlite"), key: .random())
        let time = StoreTime(microseconds: Self.now * 1_000_000)
        try await store.storeAccount(AccountRecord(serverURL: "https://example.invalid", userID: device.user, deviceID: device.id,
                                                   accessToken: nil, refreshToken: nil, updatedAt: time))
        try await store.storeIdentityKeyPair(E2EEKeyStore.IdentityKeyPair(
            identityPublic: device.identity.publicIdentity.dhKey.rawRepresentation, identityPrivate: SecretBytes(copying: [UInt8](repeating: 7, count: 32)),
            signingPublic: device.identity.publicIdentity.signingKey.rawRepresentation, signingPrivate: SecretBytes(copying: [UInt8](repeating: 8, count: 32)),
            createdAt: time))
        return store
    }

    /// Pins `device`'s identity and trusts it under text 1.2.
    static func trust(_ device: Device, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO remote_identities (user_id, device_id, identity_blob, first_seen_at, verification) VALUES (?, ?, ?, 0, 'unverified')",
                       arguments: [device.user, device.id, Data(device.blob.bytes)])
        try db.execute(sql: "INSERT OR IGNORE INTO known_devices (user_id, device_id, known_since) VALUES (?, ?, 0)", arguments: [device.user, device.id])
    }

    /// Stores a verified certificate of `device` (its identity pinned).
    static func link(_ device: Device, _ certificate: DeviceCertificate, linked: Bool, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO remote_identities (user_id, device_id, identity_blob, first_seen_at, verification) VALUES (?, ?, ?, 0, 'unverified')",
                       arguments: [device.user, device.id, Data(device.blob.bytes)])
        try ContactKeyStore().storeLinks([DeviceLink(userID: device.user, deviceID: device.id, key: certificate.userKey.rawRepresentation,
                                                     epoch: certificate.epoch, notAfter: certificate.notAfter, linked: linked,
                                                     certificate: certificate.bytes)], db)
    }

    static func key(_ user: String, _ key: Ed25519.PrivateKey, _ state: ContactKey.State, epoch: UInt32, seenUntil: UInt32 = inTwentyDays) -> ContactKey {
        ContactKey(userID: user, key: key.publicKey.rawRepresentation, state: state, maxEpoch: epoch, seenUntil: seenUntil, seenAt: now - 60,
                   firstListedAt: now - 1_000)
    }

    /// The primary's decisions: own devices (one linked, one legacy), a DM, groups in every
    /// standing with approved, held and declined members and a held device, Bob without a key,
    /// Carol conflicted (her stolen laptop under the thief's key), Erin pinned with a
    /// `seen_until` beyond 45 days.
    func primaryStore() async throws -> KeyStore {
        let store = try await openStore("primary", as: primary)
        let fixture = self
        try await store.write { db in
            let f = fixture
            try db.execute(sql: "INSERT INTO published_certificate (id, certificate, updated_at) VALUES (1, ?, 0)",
                           arguments: [Data(try f.certificate(f.primary, by: f.userKey, epoch: 2).bytes)])
            try Self.link(f.linked, try f.certificate(f.linked, by: f.userKey, epoch: 2), linked: true, db)
            try Self.trust(f.linked, db)
            try Self.trust(f.legacy, db)
            // A legacy own device (trusted under 1.2 when the key was created) lapses on a date the snapshot carries.
            try db.execute(sql: "INSERT INTO legacy_own_devices (device_id, lapses_at) VALUES (?, ?)", arguments: [f.legacy.id, Self.legacyLapse])
            let trust = ChannelTrustStore(), time = StoreTime(microseconds: 5)
            for (channel, isDM, standing) in [(f.dm, true, ChannelStanding.accepted), (f.group, false, .created), (f.request, false, .request),
                                              (f.declined, false, .declined), (f.left, false, .accepted)] {
                try trust.pin(ChannelPin(channelID: channel, isDM: isDM, standing: standing, pinnedAt: time), db)
            }
            try db.execute(sql: "INSERT INTO departed_channels (channel_id, left_at) VALUES (?, 9)", arguments: [f.left])
            _ = try RecipientStore().fixParticipants(channelID: f.dm, userIDs: [f.alice, f.bob], db)
            try trust.storeMembers([MemberStanding(channelID: f.group, userID: f.bob, state: .approved),
                                    MemberStanding(channelID: f.group, userID: f.carol, state: .held),
                                    MemberStanding(channelID: f.group, userID: f.erin, state: .declined)], at: time, db)
            try RecipientStore().storeRecipients([ChannelRecipient(channelID: f.group, userID: f.bob, deviceID: f.bobPhone.id, state: .recipient, updatedAt: time),
                                                  ChannelRecipient(channelID: f.group, userID: f.bob, deviceID: f.bobTablet.id, state: .held, updatedAt: time)], db)
            try Self.trust(f.bobPhone, db)
            let contacts = ContactKeyStore()
            try contacts.storeStanding(ContactKeyStanding(userID: f.carol, state: .conflicted), db)
            try contacts.replaceKeys(userID: f.carol, with: [Self.key(f.carol, f.carolKey, .listed, epoch: 2), Self.key(f.carol, f.thiefKey, .listed, epoch: 1)], db)
            try Self.link(f.carolPhone, try f.certificate(f.carolPhone, by: f.carolKey, epoch: 2), linked: false, db)
            try Self.link(f.carolStolen, try f.certificate(f.carolStolen, by: f.thiefKey, epoch: 1), linked: false, db)
            try contacts.pinKey(f.erinKey.publicKey.rawRepresentation, userID: f.erin, db)
            try contacts.replaceKeys(userID: f.erin, with: [Self.key(f.erin, f.erinKey, .pinned, epoch: 4, seenUntil: UInt32(Self.now + 100 * 86_400))], db)
            try Self.link(f.erinPhone, try f.certificate(f.erinPhone, by: f.erinKey, epoch: 4), linked: true, db)
        }
        return store
    }

    /// The records as N reads them: each encoded as a whole record, all in one chunk, decoded
    /// with the digest; returns the records and the digest at both ends.
    static func carry(_ records: [TrustRecord]) throws -> (records: [TrustRecord], sent: [UInt8], received: [UInt8]) {
        var sent = TransferDigest()
        var bytes: [UInt8] = []
        for record in records {
            let whole = TransferRecord.trust(record).encoded()
            sent.add(wholeRecord: whole)
            bytes += whole.unprotectedCopy()
        }
        var decoder = TransferRecordDecoder(records: SecretBytes(copying: bytes))
        var received = TransferDigest()
        var decoded: [TrustRecord] = []
        while let record = try decoder.next(updating: &received) {
            guard case .trust(let trust) = record else { continue }
            decoded.append(trust)
        }
        return (decoded, sent.digest, received.digest)
    }
}
