import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.13, "Adopting a certificate", for a store that is behind its own
    /// listing: a linked device restored from a backup made before it adopted a recert.
    @Suite("A linked device's listed certificate")
    struct ListedCertificateTests {
        /// The laptop's store file, its key, and where its backup is kept.
        struct LaptopFiles {
            let url: URL
            let copies: URL
            let key = StoreKey.random()

            init(directory: URL) {
                url = directory.appendingPathComponent("laptop.sqlite")
                copies = directory.appendingPathComponent("laptop-backup", isDirectory: true)
            }

            /// Copies the closed store with its side files.
            func copy() throws { try OwnUserKeyScene.copyStore(at: url, to: copies) }

            /// Puts the copy back in place of the current files.
            func restore() throws { try OwnUserKeyScene.restoreStore(at: url, from: copies) }
        }

        @Test("a linked laptop restored from before it adopted its epoch-2 recert takes the listed certificate at start-up; its next upload keeps epoch 2 and Alice keeps sending to it")
        func restoredStoreAdoptsListedCertificate() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let files = LaptopFiles(directory: scene.directory)
                var store = try KeyStore.open(at: files.url, key: files.key)
                var laptop = try await Account.login(username: "bob", password: "password123", deviceName: "laptop", server: harness.client(store: store),
                                                     store: store, configuration: MessagingHarness.recipientConfiguration)
                _ = try await laptop.bootstrapKeys()
                let bobLog = EventLog(scene.bob)
                let laptopID = laptop.deviceID
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: bobLog) { $0 == .linking(.trustSent(to: laptopID)) }
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(tablet, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, tablet, until: bobLog) { $0 == .linking(.trustSent(to: tablet.deviceID)) }
                await scene.bob.waitForOutbox()
                #expect(try await laptop.ownUserKey().epoch == 1, "setting up: linked at epoch 1")

                // The backup, then the removal whose recert the laptop adopts.
                await laptop.shutdown()
                try store.close()
                try files.copy()
                store = try KeyStore.open(at: files.url, key: files.key)
                laptop = try await Account.open(server: try await harness.client(restoring: store), store: store, configuration: MessagingHarness.recipientConfiguration)
                try await scene.bob.removeDevice(tablet.deviceID)
                await scene.bob.waitForOutbox()
                let renewedLaptop = laptop
                let adopted = await eventually(within: .seconds(10)) {
                    try? await renewedLaptop.sync()
                    return (try? await KeptRenewalTests.listedCertificate(of: renewedLaptop, harness: harness))?.epoch == 2
                }
                #expect(adopted, "setting up: the laptop never adopted its recert")

                // The backup is restored: the store holds epoch 1, the listing epoch 2.
                await laptop.shutdown()
                try store.close()
                try files.restore()
                store = try KeyStore.open(at: files.url, key: files.key)
                laptop = try await Account.open(server: try await harness.client(restoring: store), store: store, configuration: MessagingHarness.recipientConfiguration)
                #expect(try await laptop.ownUserKey().epoch == 2, "the restored store kept its older certificate")
                try await laptop.rotateSignedPrekey(force: true)
                #expect(try await KeptRenewalTests.listedCertificate(of: laptop, harness: harness)?.epoch == 2,
                        "the upload put the older certificate back")
                let sent = try await scene.aliceSends("after the restore")
                #expect(Set(sent.recipients ?? []) == [scene.bob.deviceID, laptop.deviceID])
                await tablet.shutdown()
                await laptop.shutdown()
                try store.close()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}
