import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// The trust part of a link transfer (docs/spec/protocol.md §11.3, §11.5) between two stores on
/// real SQLite files: the primary's decisions go through the wire form (encode, one chunk,
/// decode with the digest) into a new device, which takes every one it has not decided itself.
@Suite struct TrustTransferTests {
    private typealias F = TrustTransferFixture

    /// Everything but our own user's devices (which differ by construction between P and N).
    private static func contactRecords(_ records: [TrustRecord], ownUser: String) -> [TrustRecord] {
        records.filter { record in
            switch record {
            case .ownDevice: false
            case .deviceWithoutCertificate(let user, _, _, _): user.text != ownUser
            default: true
            }
        }
    }

    private static func capped(_ records: [TrustRecord], at cap: UInt32) -> [TrustRecord] {
        records.map { record in
            guard case .contactKey(let key) = record, key.seenUntil > cap else { return record }
            return .contactKey(ContactKeyRecord(userID: key.userID, userKey: key.userKey, state: key.state, userConflicted: key.userConflicted,
                                                seenUntil: cap, seenAt: key.seenAt, highestEpoch: key.highestEpoch, deviceID: key.deviceID,
                                                identity: key.identity, certificate: key.certificate))
        }
    }

    @Test func aRoundTripGivesTheNewDeviceThePrimarysDecisions() async throws {
        let f = TrustTransferFixture()
        let p = try await f.primaryStore()
        let snapshot = try await p.trustSnapshot()
        #expect(snapshot.omitted.isEmpty)
        let carried = try F.carry(snapshot.records)
        #expect(carried.records == snapshot.records)
        #expect(carried.sent == carried.received)
        // The same store gives the same records, so the same digest.
        #expect(try await F.carry(p.trustSnapshot().records).sent == carried.sent)

        let n = try await f.openStore("new", as: f.newDevice)
        let report = try await n.importTrust(carried.records, from: f.primary.id, ownUserKey: f.userKey.publicKey.rawRepresentation, now: F.now)
        #expect(report.conflicts.isEmpty && report.skipped.isEmpty)
        #expect(report.legacyOwnDevices == [TransferredLegacyDevice(deviceID: f.legacy.id, until: UInt32(F.legacyLapse))],
                "a legacy own device travels with its lapse date")

        // N reads back what P sent, `seen_until` capped at now + 45 days.
        let cap = UInt32(F.now + 45 * 86_400)
        let back = try await n.trustSnapshot()
        #expect(Self.contactRecords(back.records, ownUser: f.alice) == Self.capped(Self.contactRecords(snapshot.records, ownUser: f.alice), at: cap))

        let fixture = f
        try await n.read { db in
            let trust = ChannelTrustStore(), contacts = ContactKeyStore()
            #expect(try trust.loadPin(channelID: fixture.dm, db).map { ($0.isDM, $0.standing) } ?? (false, .request) == (true, .accepted))
            #expect(try trust.loadPin(channelID: fixture.group, db)?.standing == .created)
            #expect(try trust.loadPin(channelID: fixture.request, db)?.standing == .request)
            #expect(try trust.loadPin(channelID: fixture.declined, db)?.standing == .declined)
            #expect(try db.row("SELECT 1 FROM departed_channels WHERE channel_id = ? AND rejoined_at IS NULL", [fixture.left]) != nil)
            #expect(try RecipientStore().loadParticipants(channelID: fixture.dm, db) == [fixture.alice, fixture.bob])
            #expect(try trust.loadMembers(channelID: fixture.group, db).mapValues(\.state) == [fixture.bob: .approved, fixture.carol: .held, fixture.erin: .declined])
            #expect(try RecipientStore().loadRecipients(channelID: fixture.group, db).map(\.state) == [.held])
            #expect(try contacts.loadStanding(userID: fixture.carol, db)?.state == .conflicted)
            #expect(try Set(contacts.loadKeys(userID: fixture.carol, db).map(\.state)) == [.listed])
            #expect(try contacts.loadStanding(userID: fixture.erin, db)?.pinnedKey == fixture.erinKey.publicKey.rawRepresentation)
            #expect(try contacts.loadKeys(userID: fixture.erin, db).map(\.seenUntil) == [cap])
            #expect(try RecipientStore().loadKnownDevices(userIDs: [fixture.bob], db)[fixture.bob] == [fixture.bobPhone.id])
            let own = try contacts.loadLinks(userID: fixture.alice, db)
            #expect(Set(own.keys) == [fixture.primary.id, fixture.linked.id])
            #expect(own.values.allSatisfy { $0.linked && $0.certificate != nil })
        }
        #expect(try await n.transferMark(TrustMarkSubject.key(f.carol)) == f.primary.id)
        #expect(try await n.transferMark(TrustMarkSubject.channel(f.group)) == f.primary.id)
    }

    @Test func seenUntilIsCappedAtNowPlus45Days() async throws {
        let f = TrustTransferFixture()
        let records = try await f.primaryStore().trustSnapshot().records
        let erin = records.compactMap { record -> ContactKeyRecord? in
            guard case .contactKey(let key) = record, key.userID.text == f.erin else { return nil }
            return key
        }
        #expect(erin.map(\.seenUntil) == [UInt32(F.now + 100 * 86_400)])
        let n = try await f.openStore("new", as: f.newDevice)
        _ = try await n.importTrust(records, from: f.primary.id, ownUserKey: nil, now: F.now)
        let stored = try await n.read { db in try ContactKeyStore().loadKeys(userID: f.erin, db) }
        #expect(stored.map(\.seenUntil) == [UInt32(F.now + 45 * 86_400)])
    }

    /// K37: Carol is conflicted on P; N, which pinned the thief's key provisionally after a
    /// skipped transfer, becomes conflicted with both keys — its own pin of the thief's key,
    /// made before, would have stood as a decision.
    @Test func aConflictOnThePrimaryReplacesAProvisionalPin() async throws {
        let f = TrustTransferFixture()
        let records = try await f.primaryStore().trustSnapshot().records
        let n = try await f.openStore("new", as: f.newDevice)
        let thief = f.thiefKey.publicKey.rawRepresentation
        try await n.write { db in try ContactKeyStore().pinKey(thief, userID: f.carol, db) }
        try await n.markProvisionalPin(userID: f.carol, at: StoreTime(microseconds: 1))
        let report = try await n.importTrust(records, from: f.primary.id, ownUserKey: nil, now: F.now)
        #expect(report.conflicts.isEmpty)
        let (standing, keys, provisional) = try await n.read { db in
            (try ContactKeyStore().loadStanding(userID: f.carol, db), try ContactKeyStore().loadKeys(userID: f.carol, db),
             try db.count("SELECT COUNT(*) FROM provisional_pins", []))
        }
        #expect(standing?.state == .conflicted && standing?.pinnedKey == nil)
        #expect(Set(keys.map(\.key)) == [thief, f.carolKey.publicKey.rawRepresentation])
        #expect(keys.allSatisfy { $0.state == .listed })
        #expect(provisional == 0)
    }

    /// A pin N made itself (not provisional) stands against P's conflict, and is reported.
    @Test func anOwnPinStandsAgainstThePrimarysConflict() async throws {
        let f = TrustTransferFixture()
        let records = try await f.primaryStore().trustSnapshot().records
        let n = try await f.openStore("new", as: f.newDevice)
        let mine = f.carolKey.publicKey.rawRepresentation
        try await n.write { db in try ContactKeyStore().pinKey(mine, userID: f.carol, db) }
        let report = try await n.importTrust(records, from: f.primary.id, ownUserKey: nil, now: F.now)
        #expect(report.conflicts.map(\.reason) == [.userKey])
        let standing = try await n.read { db in try ContactKeyStore().loadStanding(userID: f.carol, db) }
        #expect(standing?.state == .pinned && standing?.pinnedKey == mine)
    }

    /// K39: a channel N declined itself stays declined against P's standing (reported); a
    /// request N has not answered takes P's decline.
    @Test func theNewDevicesOwnDeclineStandsAndAnUnansweredRequestTakesThePrimarys() async throws {
        let f = TrustTransferFixture()
        let records = try await f.primaryStore().trustSnapshot().records
        let n = try await f.openStore("new", as: f.newDevice)
        try await n.write { db in
            let trust = ChannelTrustStore(), time = StoreTime(microseconds: 1)
            try trust.pin(ChannelPin(channelID: f.group, isDM: false, standing: .declined, pinnedAt: time), db)
            try trust.pin(ChannelPin(channelID: f.declined, isDM: false, standing: .request, pinnedAt: time), db)
        }
        let report = try await n.importTrust(records, from: f.primary.id, ownUserKey: nil, now: F.now)
        #expect(report.conflicts.map(\.reason) == [.channelStanding])
        #expect(report.conflicts.first?.record == .channel(channelID: F.Device.wire(f.group), kind: .group, standing: .created))
        let (group, declined) = try await n.read { db in
            (try ChannelTrustStore().loadPin(channelID: f.group, db)?.standing, try ChannelTrustStore().loadPin(channelID: f.declined, db)?.standing)
        }
        #expect(group == .declined)
        #expect(declined == .declined)
        #expect(try await n.transferMark(TrustMarkSubject.channel(f.group)) == nil)
    }

    /// N's own approvals and declines of members and devices, and its DM participants, stand:
    /// against a primary's decline or other participants a conflict is reported; against a
    /// primary's mere hold nothing is.
    @Test func theNewDevicesMemberDeviceAndParticipantDecisionsStand() async throws {
        let f = TrustTransferFixture()
        let records = try await f.primaryStore().trustSnapshot().records
        let n = try await f.openStore("new", as: f.newDevice)
        try await n.write { db in
            let time = StoreTime(microseconds: 1)
            try ChannelTrustStore().storeMembers([MemberStanding(channelID: f.group, userID: f.erin, state: .approved),
                                                  MemberStanding(channelID: f.group, userID: f.carol, state: .approved)], at: time, db)
            try RecipientStore().storeRecipients([ChannelRecipient(channelID: f.group, userID: f.bob, deviceID: f.bobTablet.id, state: .declined, updatedAt: time)], db)
            _ = try RecipientStore().fixParticipants(channelID: f.dm, userIDs: [f.alice, f.carol], db)
        }
        let report = try await n.importTrust(records, from: f.primary.id, ownUserKey: nil, now: F.now)
        #expect(report.conflicts.map(\.reason) == [.memberStanding, .participants])
        let (members, tablet, participants) = try await n.read { db in
            (try ChannelTrustStore().loadMembers(channelID: f.group, db).mapValues(\.state),
             try RecipientStore().loadRecipients(deviceID: f.bobTablet.id, db).map(\.state),
             try RecipientStore().loadParticipants(channelID: f.dm, db))
        }
        #expect(members == [f.bob: .approved, f.carol: .approved, f.erin: .approved])
        #expect(tablet == [.declined])
        #expect(participants == [f.alice, f.carol])
    }

    /// Records whose certificate proves nothing are skipped and reported; the rest apply.
    @Test func recordsWhoseCertificatesDoNotVerifyAreSkipped() async throws {
        let f = TrustTransferFixture()
        let erin = f.erinPhone, erinKey = f.erinKey.publicKey
        func contact(_ certificate: DeviceCertificate, epoch: UInt32 = 4, device: TrustTransferFixture.Device? = nil) -> TrustRecord {
            let device = device ?? erin
            return .contactKey(ContactKeyRecord(userID: erin.wireUser, userKey: erinKey, state: .pinned, userConflicted: false, seenUntil: F.inTwentyDays,
                                                seenAt: UInt32(F.now), highestEpoch: epoch, deviceID: device.wireID, identity: device.blob, certificate: certificate))
        }
        let good = try f.certificate(erin, by: f.erinKey, epoch: 4)
        let stranger = TrustTransferFixture.Device(user: f.erin, id: TrustTransferFixture.id())
        let records: [TrustRecord] = [
            contact(try f.certificate(erin, by: f.thiefKey, epoch: 4)),                  // under another key
            contact(good, device: stranger),                                            // for another device
            contact(good, epoch: 9),                                                    // claims a higher E_max
            .ownDevice(deviceID: f.linked.wireID, identity: f.linked.blob, certificate: try f.certificate(f.linked, by: f.thiefKey)),
            .ownDevice(deviceID: f.linked.wireID, identity: f.legacy.blob, certificate: try f.certificate(f.linked, by: f.userKey)),
        ]
        let n = try await f.openStore("new", as: f.newDevice)
        let report = try await n.importTrust(try F.carry(records).records, from: f.primary.id, ownUserKey: f.userKey.publicKey.rawRepresentation, now: F.now)
        #expect(report.skipped.map(\.reason) == [.otherKey, .certificateDoesNotVerify, .otherKey, .certificateDoesNotVerify, .epochNotProven])
        #expect(report.applied == 0)
        let (standing, links) = try await n.read { db in
            (try ContactKeyStore().loadStanding(userID: f.erin, db), try ContactKeyStore().loadLinks(userID: f.alice, db))
        }
        #expect(standing == nil && links.isEmpty)
        // The genuine record alone applies.
        let genuine = try await n.importTrust([contact(good)], from: f.primary.id, ownUserKey: nil, now: F.now)
        #expect(genuine.skipped.isEmpty && genuine.applied == 1)
    }
}
