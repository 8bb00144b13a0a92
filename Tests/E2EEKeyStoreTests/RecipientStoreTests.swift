import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// Schema `v6` and ``RecipientStore``: standings, known devices, DM participants fixed once,
/// anomalies, policies — and a `v5` file that migrates to it.
@Suite struct RecipientStoreTests {
    private let time = StoreTime(microseconds: 1_000)

    @Test func standingsRoundTripAndAreReplacedPerChannelAndDevice() async throws {
        let store = try KeyStore.inMemory()
        let recipients = store.recipientStore
        let held = ChannelRecipient(channelID: "c1", userID: "u1", deviceID: "d1", state: .held, updatedAt: time)
        try await store.write { db in
            try recipients.storeRecipients([held, ChannelRecipient(channelID: "c2", userID: "u1", deviceID: "d1", state: .recipient, updatedAt: time)], db)
        }
        #expect(try await store.read { db in try recipients.loadRecipients(state: .held, db) } == [held])
        let approved = ChannelRecipient(channelID: "c1", userID: "u1", deviceID: "d1", state: .recipient, updatedAt: time)
        try await store.write { db in try recipients.storeRecipients([approved], db) }
        #expect(try await store.read { db in try recipients.loadRecipients(channelID: "c1", db) } == [approved])
        #expect(try await store.read { db in try recipients.loadRecipients(deviceID: "d1", db) }.map(\.state) == [.recipient, .recipient])
    }

    @Test func participantsAreFixedOnceAndOnlyAsTwoUsers() async throws {
        let store = try KeyStore.inMemory()
        let recipients = store.recipientStore
        #expect(try await store.write { db in try recipients.fixParticipants(channelID: "dm", userIDs: ["a", "b", "c"], db) } == false)
        #expect(try await store.write { db in try recipients.fixParticipants(channelID: "dm", userIDs: ["a", "b"], db) })
        #expect(try await store.write { db in try recipients.fixParticipants(channelID: "dm", userIDs: ["a", "m"], db) } == false)
        #expect(try await store.read { db in try recipients.loadParticipants(channelID: "dm", db) } == ["a", "b"])
    }

    @Test func knownDevicesAnomaliesAndPolicies() async throws {
        let store = try KeyStore.inMemory()
        let recipients = store.recipientStore
        try await store.write { db in
            try recipients.storeKnownDevices([("u1", "d1"), ("u1", "d2"), ("u1", "d1")], at: self.time, db)
            try recipients.storeAnomalies(channelID: "dm", userIDs: ["m"], at: self.time, db)
            try recipients.storePolicy(.surface, channelID: nil, db)
            try recipients.storePolicy(.hold, channelID: "g", db)
        }
        #expect(try await store.read { db in try recipients.loadKnownDevices(userIDs: ["u1", "u2"], db) } == ["u1": ["d1", "d2"]])
        #expect(try await store.read { db in try recipients.loadAnomalies(channelID: "dm", db) } == ["m"])
        #expect(try await store.read { db in try recipients.loadPolicy(channelID: nil, db) } == .surface)
        #expect(try await store.read { db in try recipients.loadPolicy(channelID: "g", db) } == .hold)
        try await store.write { db in try recipients.storePolicy(nil, channelID: "g", db) }
        #expect(try await store.read { db in try recipients.loadPolicy(channelID: "g", db) } == nil)
    }

    @Test("distrusting a user met under a key records the devices listings showed for them: the user is met, none trusted")
    func distrustingAKeyedUserKeepsThemMet() async throws {
        let store = try KeyStore.inMemory()
        let recipients = store.recipientStore
        try await store.write { db in
            // u1 was met under a user key: device links, no known device.
            try store.contactKeyStore.storeLinks([DeviceLink(userID: "u1", deviceID: "d1", key: nil, epoch: 0, notAfter: 0, linked: true),
                                                  DeviceLink(userID: "u1", deviceID: "d2", key: nil, epoch: 0, notAfter: 0, linked: false)], db)
            try recipients.storeRecipients([ChannelRecipient(channelID: "c1", userID: "u1", deviceID: "d1", state: .recipient, updatedAt: self.time)], db)
            try recipients.storeKnownDevices([("u2", "e1")], at: self.time, db)
        }
        #expect(try await store.read { db in try recipients.loadKnownDevices(userIDs: ["u1"], db) } == [:])
        try await store.write { db in
            try recipients.distrustKnownDevices(ofUser: "u1", db)
            try recipients.distrustKnownDevices(ofUser: "u2", db)
        }
        #expect(try await store.read { db in try recipients.loadKnownDevices(userIDs: ["u1", "u2"], db) } == ["u1": [], "u2": []])
        #expect(try await store.read { db in try recipients.loadRecipients(channelID: "c1", db) }.map(\.state) == [.held])
        #expect(try await store.read { db in try store.contactKeyStore.trustedDevices(userID: "u1", db) }.isEmpty)
    }

    @Test func stateOutsideTheEnumIsRefusedBySQL() async throws {
        let store = try KeyStore.inMemory()
        await #expect(throws: DatabaseError.self) {
            try await store.write { db in
                try db.execute(sql: "INSERT INTO channel_recipients (channel_id, user_id, device_id, state, updated_at) VALUES ('c', 'u', 'd', 'maybe', 0)")
            }
        }
    }

    @Test func v5FileMigratesToV6() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v5")
        try await queue.write { db in try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: Sealer(key: key), now: 1) }
        try queue.close()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        #expect(try await store.read { db in try store.recipientStore.loadRecipients(state: .held, db) }.isEmpty)
        try store.close()
    }
}
