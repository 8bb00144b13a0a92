import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import GRDB
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.3 against the development server: every trust decision on the
    /// primary raises its file's trust counter first, then the store's mirror; a store restored
    /// from a copy taken before a decision (the file intact) sends no manifest until the user
    /// confirms the trust state it shows (attack K38 of the linking proposal).
    @Suite("Trust counter")
    struct TrustCounterTests {
        @Test("K38: a primary store rolled back behind its file sends no manifest until the user confirms the trust state; then the transfer completes")
        func rolledBackStore() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await carol.createGroup(name: "carol's", members: [scene.bob.userID])
                _ = try await scene.bob.refreshChannels()
                #expect(try await scene.bob.channelRequests().contains { $0.channel.id == group.id }, "setting up: a request on the primary")
                let backup = scene.directory.appendingPathComponent("backup", isDirectory: true)
                try await scene.reopenBob { try OwnUserKeyScene.copyStore(at: $0, to: backup) }
                let before = try scene.fileContents().trustCounter

                // The decision: the file's counter first, then the store's mirror, one each.
                try await scene.bob.declineChannel(group.id)
                #expect(try scene.fileContents().trustCounter == before + 1)
                #expect(try await scene.bob.store.read { db in try OwnUserKeyStore().load(db)?.trustCounter } == before + 1)
                #expect(try await scene.bob.ownUserKey().trustStateUnconfirmed == false, "an honest store is not behind")

                // The store is put back as it was before the decision; the file stays.
                try await scene.reopenBob { try OwnUserKeyScene.restoreStore(at: $0, from: backup) }
                #expect(try await scene.bob.channelRequests().contains { $0.channel.id == group.id }, "setting up: the decline is lost with the store")
                #expect(try await scene.bob.ownUserKey().trustStateUnconfirmed == true)

                let events = EventLog(scene.bob)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                // The laptop is linked; the primary holds the transfer before its manifest 1.
                var held = false
                for _ in 0..<50 where !held {
                    held = await events.all().contains(.linking(.trustStateUnconfirmed(laptop.deviceID)))
                    if !held { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(held, "the hold is surfaced")
                for _ in 0..<3 {
                    await scene.bob.waitForOutbox()
                    try await laptop.sync()
                    await laptop.waitForOutbox()
                    try await scene.bob.sync()
                }
                #expect(try await scene.bob.transfers().isEmpty, "no snapshot taken, nothing sent")
                let waiting = try #require(try await laptop.transfers().first)
                #expect(waiting.recordsExpected == nil, "no manifest reached the laptop: \(waiting)")
                #expect(try await Self.primaryPosts(scene.bob, to: laptop, harness: harness) == 0)

                // The user looks at the trust state shown and confirms it: the counters are equal, the transfer runs.
                try await scene.bob.confirmTrustState()
                #expect(try await scene.bob.ownUserKey().trustStateUnconfirmed == false)
                #expect(try scene.fileContents().trustCounter == before + 1, "confirming raises nothing in the file")
                try await TransferIntegrationTests.pump(scene.bob, laptop, "the confirmed transfer") {
                    try await laptop.transfers().first?.state == .done
                }
                #expect(try await scene.bob.transfers().first?.state == .done)
                                await laptop.shutdown()
                await carol.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K38: a decision on a device that is not the primary raises nothing; confirmTrustState there is notPrimary")
        func notPrimary() async throws {
            try await MessagingHarness.with { harness in
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await carol.createGroup(name: "carol's", members: [bob.userID])
                _ = try await bob.refreshChannels()
                try await bob.declineChannel(group.id)
                #expect(try await bob.ownUserKey().trustStateUnconfirmed == false)
                await #expect(throws: MessagingError.notPrimary) { try await bob.confirmTrustState() }
                await bob.shutdown()
                await carol.shutdown()
            }
        }

        /// How many messages the primary posted in the laptop's transfer channel, as the server holds them.
        static func primaryPosts(_ primary: Account, to laptop: Account, harness: MessagingHarness) async throws -> Int {
            let channel = try #require(try await laptop.store.incomingTransfers().first?.channelID)
            let messages = try await harness.serverMessages(ChannelID(channel), as: try await harness.reader(of: laptop))
            return messages.filter { $0.senderDeviceID == primary.deviceID }.count
        }
    }
}
