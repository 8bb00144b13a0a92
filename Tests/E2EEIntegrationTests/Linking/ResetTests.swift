import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.16 (reset) and the stop of §10.12 a reset elsewhere asks for,
    /// against the development server (K29 of the linking proposal).
    @Suite("Resetting the user key")
    struct ResetTests {
        @Test("K29: Bob resets on the laptop (the phone lost): the laptop is the primary of a new key at epoch 1, the phone is deleted on the server, the new key is listed; the tablet, linked under the old key, links to the laptop without a new login")
        func resetOnLaptop() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await Self.loginOnDisk("laptop", scene: scene, harness: harness)
                try await Self.linkFully(laptop, to: scene.bob)
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                try await Self.linkFully(tablet, to: scene.bob)
                let oldKey = try #require(try await scene.bob.ownUserKey().key)
                #expect(try await tablet.ownUserKey().key == oldKey)

                try await laptop.resetUserKey(removing: [scene.bob.deviceID])
                let reset = try await laptop.ownUserKey()
                let newKey = try #require(reset.key)
                #expect(reset.role == .primary && newKey != oldKey && reset.epoch == 1 && reset.primary == laptop.deviceID)
                let listed = try await harness.reader(of: scene.alice).bundles(userID: scene.bob.userID).map(\.deviceID)
                #expect(!listed.contains(scene.bob.deviceID), "the lost phone is still listed")
                let listedKey = try #require(try await KeptRenewalTests.listedCertificate(of: laptop, harness: harness)).userKey.rawRepresentation
                #expect(UserKey(publicKey: listedKey) == newKey, "the laptop's record carries the new key")

                // The tablet under the old key is no longer the laptop's to trust: it links again
                // (§10.11), without a new login, and takes the new key.
                try await LinkCeremonyIntegrationTests.link(tablet, to: laptop)
                #expect(try await tablet.ownUserKey().key == newKey)
                await tablet.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("stopIssuing on the primary (a reset made elsewhere): issuing stops for good, surfaced once; on a linked device notPrimary")
        func stopIssuing() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                await #expect(throws: MessagingError.notPrimary) { try await laptop.stopIssuing() }
                let events = EventLog(scene.bob)
                try await scene.bob.stopIssuing()
                #expect(await events.all().filter { $0 == .linking(.issuingStopped(.resetElsewhere)) }.count == 1)
                #expect(try await scene.bob.ownUserKey().issuingStopped == .resetElsewhere)
                let logCount = try scene.fileContents().logCount
                try await scene.restartBob(offset: 8 * 86_400)
                await #expect(throws: MessagingError.issuingStopped(.resetElsewhere)) { try await scene.bob.renewOwnCertificate() }
                await #expect(throws: MessagingError.issuingStopped(.resetElsewhere)) { try await scene.bob.removeDevice(laptop.deviceID) }
                #expect(try scene.fileContents().logCount == logCount, "a stopped primary issued")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Links `device` to `primary` and carries the trust part to its end.
        static func linkFully(_ device: Account, to primary: Account) async throws {
            let events = EventLog(device)
            try await LinkCeremonyIntegrationTests.link(device, to: primary)
            try await LinkCeremonyIntegrationTests.pump(primary, device, until: events) {
                if case .linking(.trustTransferred) = $0 { true } else { false }
            }
        }

        /// A login of Bob's over a store file in the scene's directory, with the scene's keychain
        /// (a device that can hold a primary file).
        static func loginOnDisk(_ name: String, scene: OwnUserKeyScene, harness: MessagingHarness) async throws -> Account {
            let store = try KeyStore.open(at: scene.directory.appendingPathComponent("\(name).sqlite"), key: .random())
            let account = try await Account.login(username: "bob", password: "password123", deviceName: name, server: harness.client(store: store),
                                                  store: store, configuration: scene.configuration())
            _ = try await account.bootstrapKeys()
            return account
        }
    }
}
