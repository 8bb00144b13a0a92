import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// Schema `v11` and ``ChannelTrustStore``: a kind pinned once, contradictions
/// recorded once, standings, member standings, a DM request's candidate — and a `v9` file whose
/// channels migrate as accepted (a DM without participants as a request).
@Suite struct ChannelTrustStoreTests {
    private let time = StoreTime(microseconds: 1_000)

    private func listed(_ id: String, dm: Bool, type: String? = nil) -> ChannelRecord {
        ChannelRecord(id: id, name: nil, isDM: dm, encryptionType: type ?? (dm ? "x3dh" : "sender_keys"), createdBy: "someone",
                      createdAt: time, membersFetchedAt: nil)
    }

    @Test func kindIsPinnedAtFirstLearningAndAContradictionIsRecordedOnce() async throws {
        let store = try KeyStore.inMemory()
        let trust = store.channelTrustStore
        let first = try await store.write { db in try trust.learn(self.listed("c", dm: true), createdAsDM: nil, at: self.time, db) }
        #expect(first.record.isDM && !first.firstContradiction)
        #expect(try await store.read { db in try trust.loadPin(channelID: "c", db) }?.standing == .request)
        let flipped = try await store.write { db in try trust.learn(self.listed("c", dm: false), createdAsDM: nil, at: self.time, db) }
        #expect(flipped.record.isDM && flipped.record.encryptionType == "x3dh")
        #expect(flipped.firstContradiction)
        let again = try await store.write { db in try trust.learn(self.listed("c", dm: false), createdAsDM: nil, at: self.time, db) }
        #expect(again.record.isDM && !again.firstContradiction)
    }

    @Test func theCreatorPinsFromItsOwnRequestAndOpeningARequestAcceptsIt() async throws {
        let store = try KeyStore.inMemory()
        let trust = store.channelTrustStore
        let created = try await store.write { db in try trust.learn(self.listed("g", dm: true), createdAsDM: false, at: self.time, db) }
        #expect(!created.record.isDM && created.record.encryptionType == "sender_keys" && created.firstContradiction)
        #expect(try await store.read { db in try trust.loadPin(channelID: "g", db) }?.standing == .created)
        _ = try await store.write { db in try trust.learn(self.listed("d", dm: true), createdAsDM: nil, at: self.time, db) }
        _ = try await store.write { db in try trust.learn(self.listed("d", dm: true), createdAsDM: true, at: self.time, db) }
        #expect(try await store.read { db in try trust.loadPin(channelID: "d", db) }?.standing == .accepted)
    }

    @Test func aListingWithAnInvalidPairIsNotPinned() async throws {
        let store = try KeyStore.inMemory()
        let trust = store.channelTrustStore
        _ = try await store.write { db in try trust.learn(self.listed("x", dm: true, type: "sender_keys"), createdAsDM: nil, at: self.time, db) }
        #expect(try await store.read { db in try trust.loadPin(channelID: "x", db) } == nil)
    }

    @Test func membersRoundTripByChannelAndState() async throws {
        let store = try KeyStore.inMemory()
        let trust = store.channelTrustStore
        let held = MemberStanding(channelID: "g", userID: "m", state: .held)
        let approved = MemberStanding(channelID: "g", userID: "b", state: .approved, missingSince: time)
        try await store.write { db in try trust.storeMembers([held, approved], at: self.time, db) }
        #expect(try await store.read { db in try trust.loadMembers(channelID: "g", db) } == ["m": held, "b": approved])
        #expect(try await store.read { db in try trust.loadMembers(state: .held, db) } == [held])
    }

    @Test func theCandidateIsTheEarliestOtherDecryptedSenderNotDeclined() async throws {
        let store = try KeyStore.inMemory()
        let trust = store.channelTrustStore
        @Sendable func row(_ id: String, _ user: String, _ at: Int64) -> TimelineMessage {
            TimelineMessage(messageID: id, channelID: "d", senderUserID: user, senderDeviceID: "dev-\(user)", createdAt: StoreTime(microseconds: at),
                            contentHash: Fixtures.hash(id), state: .decrypted, plaintext: Fixtures.secret(id))
        }
        try await store.write { db in
            for message in [row("m3", "late", 30), row("m1", "me", 10), row("m2", "first", 20)] {
                try store.timelineStore.storeMessage(message, db)
            }
        }
        #expect(try await store.read { db in try trust.loadCandidate(channelID: "d", ownUserID: "me", db) } == "first")
        try await store.write { db in try trust.storeMembers([MemberStanding(channelID: "d", userID: "first", state: .declined)], at: self.time, db) }
        #expect(try await store.read { db in try trust.loadCandidate(channelID: "d", ownUserID: "me", db) } == "late")
    }

    @Test func v9FilePinsItsChannelsAsAccepted() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v9")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: Sealer(key: key), now: 1)
            for channel in [self.listed("g", dm: false), self.listed("fixed", dm: true), self.listed("open", dm: true)] {
                try ChannelStore().storeChannel(channel, db)
            }
            _ = try RecipientStore().fixParticipants(channelID: "fixed", userIDs: ["a", "b"], db)
            try RecipientStore().storeRecipients([ChannelRecipient(channelID: "g", userID: "b", deviceID: "b1", state: .recipient, updatedAt: self.time)], db)
        }
        try queue.close()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let trust = store.channelTrustStore
        #expect(try await store.read { db in try trust.loadPin(channelID: "g", db) }?.standing == .accepted)
        #expect(try await store.read { db in try trust.loadPin(channelID: "fixed", db) }?.standing == .accepted)
        #expect(try await store.read { db in try trust.loadPin(channelID: "open", db) }?.standing == .request)
        #expect(try await store.read { db in try trust.loadMembers(channelID: "g", db) }["b"]?.state == .approved)
        try store.close()
    }
}
