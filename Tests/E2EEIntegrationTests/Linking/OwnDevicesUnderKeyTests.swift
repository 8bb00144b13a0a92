import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.25 against the development server: our own devices under our own
    /// key. A device holding the key sends our messages only to own devices the key links (or a
    /// legacy one for its 30 days), whatever text 1.2 approved; a device without a key stops
    /// sending once a device it trusts carries our key, and is told once to link when only a
    /// device it does not trust does.
    @Suite("Own devices under our key")
    struct OwnDevicesUnderKeyTests {
        private static let day: Int64 = 86_400

        @Test("a linked laptop that republishes under another key gets none of our messages any more, and is surfaced")
        func linkedDeviceUnderAnotherKey() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let before = try await KeyedContact.send("to Alice and my laptop", from: scene.bob, to: scene.dm.id, harness: harness)
                #expect(before.recipients == [scene.alice.deviceID, laptop.deviceID], "setting up: the linked laptop gets Bob's messages")

                let log = EventLog(scene.bob)
                // The laptop (stolen, or the server's) carries a certificate under a key that is not Bob's.
                try await KeyedContact.certify(laptop, by: Ed25519.PrivateKey(), notAfter: UInt32(KeyedContact.wallClock() + 20 * Self.day))
                let after = try await KeyedContact.send("to Alice only", from: scene.bob, to: scene.dm.id, harness: harness)
                #expect(after.recipients == [scene.alice.deviceID])
                #expect(await log.identity().contains(.deviceUnlinked(userID: scene.bob.userID, deviceID: laptop.deviceID, reason: .replaced)))
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("a higher epoch on the primary unlinks an own device still at the old one, and a replay of the older records links it no more")
        func epochReplayedToALinkedDevice() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.link(tablet, to: scene.bob)
                _ = try await laptop.openDirectMessage(with: scene.alice.userID)
                let before = try await KeyedContact.send("to everyone", from: laptop, to: scene.dm.id, harness: harness)
                #expect(before.recipients == [scene.alice.deviceID, scene.bob.deviceID, tablet.deviceID], "setting up")
                let epochOne = try await KeyedContact.records(of: [scene.bob], harness: harness)

                // The primary moves to epoch 2 without the tablet (as a removal does first).
                let key = try scene.fileContents().userKey()
                try await KeyedContact.certify(scene.bob, by: key, epoch: 2, notAfter: UInt32(KeyedContact.wallClock() + 20 * Self.day))
                let after = try await KeyedContact.send("not to the tablet", from: laptop, to: scene.dm.id, harness: harness)
                #expect(after.recipients == [scene.alice.deviceID, scene.bob.deviceID])

                // The server serves the laptop the primary's epoch-1 record again.
                await harness.server.faults.serveRecord(device: scene.bob.deviceID.rawValue,
                                                        record: .given(signedPreKey: try #require(epochOne[scene.bob.deviceID]).signedPreKey,
                                                                       signature: try #require(epochOne[scene.bob.deviceID]).signedPreKeySignature),
                                                        toViewer: laptop.deviceID.rawValue)
                // Epoch 2 is stored: the replayed record is below it too, and the tablet stays unlinked.
                let replayed = try await KeyedContact.send("still not to the tablet", from: laptop, to: scene.dm.id, harness: harness)
                #expect(replayed.recipients == [scene.alice.deviceID])
                await tablet.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("a key created on the phone: the trusting laptop must link, and stays a recipient for 30 days as a legacy device")
        func keyCreatedOnAnotherDevice() async throws {
            try await MessagingHarness.with { harness in
                let legacy = try await LegacyAccount.make(harness)
                defer { legacy.cleanUp() }
                let (phone, laptop, alice, dm) = (legacy.phone, legacy.laptop, legacy.alice, legacy.dm)
                try await harness.trust([phone, laptop])
                let laptopLog = EventLog(laptop)
                _ = try await laptop.send(text: "before the key", to: dm.id)
                await laptop.waitForOutbox()

                try await phone.createUserKey()
                let sent = try await KeyedContact.send("the laptop is legacy", from: phone, to: dm.id, harness: harness)
                #expect(sent.recipients == [alice.deviceID, laptop.deviceID])
                // The laptop trusts the phone, which now carries Bob's key: it sends nothing until linked.
                await #expect(throws: MessagingError.linkingRequired) { _ = try await laptop.send(text: "after the key", to: dm.id) }
                await #expect(throws: MessagingError.linkingRequired) { _ = try await laptop.send(text: "still not linked", to: dm.id) }
                #expect(await laptopLog.all().filter { $0 == .linking(.linkingRequired) }.count == 1)
                #expect(try await laptop.ownUserKey().role == .unlinked)

                // 31 days later the laptop has lapsed: surfaced once, never a recipient again.
                await phone.shutdown()
                let later = try await Account.open(server: try await harness.client(restoring: phone.store), store: phone.store,
                                                   configuration: legacy.configuration(offset: 31 * Self.day))
                let phoneLog = EventLog(later)
                let lapsed = try await KeyedContact.send("the laptop lapsed", from: later, to: dm.id, harness: harness)
                #expect(lapsed.recipients == [alice.deviceID])
                _ = try await KeyedContact.send("still lapsed", from: later, to: dm.id, harness: harness)
                #expect(await phoneLog.count { $0 == .deviceUnlinked(userID: phone.userID, deviceID: laptop.deviceID, reason: .legacy) } == 1)
                #expect(try await later.ownUserKey().legacyDevices.isEmpty)
                await later.shutdown()
                await laptop.shutdown()
                await alice.shutdown()
            }
        }

        @Test("K32: a login shown no certificate, then the primary's: told once to link, and still sends")
        func linkSuggestedOnce() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // The server hides the primary's record while the new login reads its listing.
                await harness.server.faults.serveRecord(device: scene.bob.deviceID.rawValue, record: .absent)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let store = laptop.store
                let log = EventLog(laptop)
                await harness.server.faults.serveRecord(device: scene.bob.deviceID.rawValue, record: .current)
                _ = try await laptop.openDirectMessage(with: scene.alice.userID)

                _ = try await KeyedContact.send("first", from: laptop, to: scene.dm.id, harness: harness)
                _ = try await KeyedContact.send("second", from: laptop, to: scene.dm.id, harness: harness)
                #expect(await log.all().filter { $0 == .linking(.linkSuggested) }.count == 1)
                #expect(try await laptop.ownUserKey().role == .noKey)

                // Told once per store, not once per launch.
                await laptop.shutdown()
                let again = try await Account.open(server: try await harness.client(restoring: store), store: store,
                                                   configuration: MessagingHarness.recipientConfiguration)
                let againLog = EventLog(again)
                _ = try await KeyedContact.send("third", from: again, to: scene.dm.id, harness: harness)
                #expect(await againLog.all().filter { $0 == .linking(.linkSuggested) }.isEmpty)
                await again.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}

/// Bob on text 1.2 — a phone (whose store lies in a directory of its own, with a keychain, so it
/// can create a key later) and a laptop logged in after it — and Alice in an accepted DM with both.
private struct LegacyAccount {
    let directory: URL
    let keychain: MemoryKeychain
    let phone: Account
    let laptop: Account
    let alice: Account
    let dm: ChatChannel

    /// The phone's configuration, its text 1.3 clock moved by `offset` seconds.
    func configuration(offset: Int64 = 0) -> AccountConfiguration {
        var configuration = MessagingHarness.recipientConfiguration
        configuration.primaryFileKeychain = keychain
        configuration.debugClockOffset = .seconds(offset)
        return configuration
    }

    static func make(_ harness: MessagingHarness) async throws -> LegacyAccount {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-legacy-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keychain = MemoryKeychain()
        var configuration = MessagingHarness.recipientConfiguration
        configuration.primaryFileKeychain = keychain
        let store = try KeyStore.open(at: directory.appendingPathComponent("bob.sqlite"), key: .random())
        let phone = try await harness.register("bob", store: store, configuration: configuration)
        let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
        let alice = try await harness.registerWithDefaults("alice")
        let dm = try await alice.openDirectMessage(with: phone.userID)
        try await harness.accept(dm, on: [phone, laptop], between: (alice.userID, phone.userID))
        return LegacyAccount(directory: directory, keychain: keychain, phone: phone, laptop: laptop, alice: alice, dm: dm)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}
