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
                let copy = try await Self.copyFileAndStore(&scene)
                let olderLog = copy.logCount

                // The primary issues the laptop a certificate (logged in the file), which the server lists.
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                #expect(try scene.fileContents().logCount == olderLog + 1, "setting up: the laptop's certificate is logged")
                #expect(try await laptop.ownUserKey().role == .linked)

                // Both restored.
                try await Self.restore(copy, into: &scene)
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

        @Test("K30: the primary renews the laptop, then its file and store are restored from a copy taken before: the laptop's newer certificate stops issuing (anotherHolder), the laptop named")
        func restoredAfterRenewal() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                var laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let linkEvents = EventLog(laptop)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: linkEvents) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                await scene.bob.waitForOutbox()
                let granted = try #require(try await laptop.ownUserKey().notAfter)

                // The copy, with the laptop's first certificate in its log.
                let copy = try await Self.copyFileAndStore(&scene)
                let olderLog = copy.logCount

                // Eight days on, the primary renews the laptop, which adopts and republishes it.
                try await scene.restartBob(offset: 8 * Self.day)
                await scene.bob.waitForOutbox()
                #expect(try scene.fileContents().logCount > olderLog, "setting up: renewed")
                laptop = try await KeptRenewalTests.reopen(laptop, offset: 8 * Self.day, harness: harness)
                let reopened = laptop
                let adopted = await eventually(within: .seconds(10)) {
                    try? await reopened.sync()
                    return (try? await reopened.ownUserKey().notAfter).map { $0 > granted } ?? false
                }
                #expect(adopted, "setting up: the laptop adopted its newer certificate")
                let newer = try #require(try await KeptRenewalTests.listedCertificate(of: laptop, harness: harness))

                try await Self.restore(copy, into: &scene)
                let restored = try scene.fileContents()
                #expect(restored.logCount == olderLog)
                #expect(!restored.logs(certificate: newer.bytes), "setting up: the restored log lacks the laptop's newer certificate")
                let events = EventLog(scene.bob)
                await #expect(throws: MessagingError.issuingStopped(.anotherHolder)) { try await scene.bob.renewOwnCertificate() }
                let seen = await events.all()
                #expect(seen.contains(.linking(.certificateNotLogged(laptop.deviceID))), "the laptop is named: \(seen)")
                #expect(try await scene.bob.ownUserKey().issuingStopped == .anotherHolder)
                #expect(try scene.fileContents().logCount == olderLog, "nothing issued")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        static let day: Int64 = 86_400

        /// The primary's store and file as a backup holds them.
        struct Copy {
            let backup: URL
            let file: Data
            /// The certificates the copied file logs.
            let logCount: UInt64
        }

        /// Copies Bob's primary store and file aside (the store closed while it is copied).
        static func copyFileAndStore(_ scene: inout OwnUserKeyScene) async throws -> Copy {
            let backup = scene.directory.appendingPathComponent("backup", isDirectory: true)
            try await scene.reopenBob { try OwnUserKeyScene.copyStore(at: $0, to: backup) }
            return Copy(backup: backup, file: try Data(contentsOf: scene.primaryFile.url), logCount: try scene.fileContents().logCount)
        }

        /// Puts `copy` back, store and file; the start-up renewal is kept from reading the file,
        /// so a test watches the renewal that follows.
        static func restore(_ copy: Copy, into scene: inout OwnUserKeyScene) async throws {
            scene.keychain.withhold(true)
            let fileURL = scene.primaryFile.url
            try await scene.reopenBob { url in
                try OwnUserKeyScene.restoreStore(at: url, from: copy.backup)
                try copy.file.write(to: fileURL)
            }
            scene.keychain.withhold(false)
        }
    }
}
