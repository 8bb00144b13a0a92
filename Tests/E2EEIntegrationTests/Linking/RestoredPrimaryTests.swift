import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.12 (attack K30 of the linking proposal, its middle scene): the
    /// primary's file and store both restored from an older copy, with an honest server.
    @Suite("Restored primary")
    struct RestoredPrimaryTests {
        @Test("K30: file and store restored, honest server: the laptop's newer certificate is not in the log — anotherHolder, the laptop named, nothing issued")
        func fileAndStoreRestored() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // The copy: the store and the primary file as they are before the laptop is linked.
                let backup = scene.directory.appendingPathComponent("backup", isDirectory: true)
                try await scene.reopenBob { try OwnUserKeyScene.copyStore(at: $0, to: backup) }
                let olderFile = try Data(contentsOf: scene.primaryFile.url)
                let olderLog = try scene.fileContents().logCount

                // The primary issues the laptop a certificate (logged in the file), which the server lists.
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                #expect(try scene.fileContents().logCount == olderLog + 1, "setting up: the laptop's certificate is logged")
                #expect(try await laptop.ownUserKey().role == .linked)

                // Both restored; the start-up renewal is kept from reading the file, so the test
                // watches the renewal that follows.
                scene.keychain.withhold(true)
                let fileURL = scene.primaryFile.url
                try await scene.reopenBob { url in
                    try OwnUserKeyScene.restoreStore(at: url, from: backup)
                    try olderFile.write(to: fileURL)
                }
                scene.keychain.withhold(false)
                #expect(try scene.fileContents().logCount == olderLog, "setting up: the older file")
                let listedBefore = try await scene.listedCertificate()
                let events = EventLog(scene.bob)
                await #expect(throws: MessagingError.issuingStopped(.anotherHolder)) { try await scene.bob.renewOwnCertificate() }
                let seen = await events.all()
                #expect(seen.contains(.linking(.certificateNotLogged(laptop.deviceID))), "the laptop is named")
                #expect(!seen.contains(.linking(.certificateNotLogged(scene.bob.deviceID))), "the primary's own listed certificate is in the log")
                #expect(seen.contains(.linking(.issuingStopped(.anotherHolder))))
                #expect(try await scene.bob.ownUserKey().issuingStopped == .anotherHolder)
                #expect(try scene.fileContents().logCount == olderLog, "nothing issued")
                #expect(try await scene.listedCertificate() == listedBefore, "nothing published")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}
