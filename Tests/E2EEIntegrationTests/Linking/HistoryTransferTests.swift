import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.7–§11.9 end to end against the development server: a linked
    /// laptop receives its primary's history after the trust part, in the same transfer, and
    /// shows it labelled as transferred.
    @Suite("History to a linked device")
    struct HistoryTransferTests {
        @Test("linked with the default scope, the laptop shows the DM as the phone does — Alice's messages and Bob's own — labelled as transferred")
        func historyArrives() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                _ = try await scene.aliceSends("two")
                _ = try await scene.aliceSends("three")
                try await scene.bob.sync()
                _ = try await scene.bob.send(text: "from the phone", to: scene.dm.id)
                await scene.bob.waitForOutbox()
                let shown = try await Self.texts(scene.bob, scene.dm.id)
                #expect(shown == ["hello", "two", "three", "from the phone"], "setting up: \(shown)")

                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let log = EventLog(laptop)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: log) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                let items = try await laptop.timeline(channelID: scene.dm.id, limit: 100).filter { $0.state == .decrypted }
                #expect(items.compactMap(\.text) == shown)
                #expect(items.allSatisfy { $0.transferredFrom == scene.bob.deviceID }, "\(items.map(\.transferredFrom))")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("linked with history none, the laptop receives the trust part and no message")
        func noHistory() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                try await scene.bob.sync()
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let log = EventLog(laptop)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob, history: .none)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: log) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                let items = try await laptop.timeline(channelID: scene.dm.id, limit: 100)
                #expect(!items.contains { $0.transferredFrom != nil }, "\(items.map(\.text))")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K36: Alice's prekey message to the new device before its trust part commits waits (transfer:), then decrypts once the primary's decisions are in")
        func waitsForTheTrustPart() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let log = EventLog(laptop)
                // The ceremony up to the laptop's code; the laptop's link posts are held from the
                // moment it takes the grant, so its ack(0) does not reach the phone yet.
                let (primary, mine, codeN) = try await LinkCeremonyIntegrationTests.untilCodes(scene.bob, laptop)
                let codeP = try await LinkCeremonyIntegrationTests.granted(primary, of: scene.bob, typing: codeN, for: laptop)
                await harness.server.faults.holdPosts(contentType: LinkEnvelope.contentType, fromDevice: laptop.deviceID.rawValue)
                await mine.attempt.enter(code: codeP)
                try await laptop.sync()
                _ = try await mine.next(until: .linked)

                // Alice writes now: her message reaches the laptop, linked under Bob's key.
                let sent = try await scene.aliceSends("while the laptop waits")
                #expect(sent.recipients?.contains(laptop.deviceID) == true, "setting up: \(String(describing: sent.recipients))")
                try await laptop.sync()
                let waiting = try await laptop.store.read { db in
                    try String.fetchAll(db, sql: "SELECT waiting_for FROM pending_ciphertexts")
                }
                #expect(waiting.contains { $0.hasPrefix("transfer:") }, "\(waiting)")
                #expect(try await Self.texts(laptop, scene.dm.id).contains("while the laptop waits") == false)

                // The ack goes out, the trust part commits, the message is read.
                _ = try await harness.server.faults.releasePosts()
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: log) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                let read = await eventually(within: .seconds(10)) {
                    try? await laptop.sync()
                    return (try? await Self.texts(laptop, scene.dm.id).contains("while the laptop waits")) == true
                }
                let texts = try await Self.texts(laptop, scene.dm.id)
                #expect(read, "\(texts)")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K41: history under loss — link posts dropped, events doubled, both ends restarted; one message edited, one deleted and one arriving during the transfer: each shown once, the edit and the deletion applied")
        func historyUnderLoss() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                for text in ["keep me", "edit me", "delete me"] { _ = try await scene.aliceSends(text) }
                try await scene.bob.sync()
                let ids = Dictionary(try await scene.alice.timeline(channelID: scene.dm.id, limit: 100).compactMap { item in
                    item.text.map { ($0, item.messageID) }
                }) { a, _ in a }
                try await TransferIntegrationTests.restartPrimary(&scene, harness: harness)
                var laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let faults = harness.server.faults
                await faults.duplicateEvents(true)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob, beforeTransfer: {
                    await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 3)
                })
                // Alice edits, deletes and writes while the transfer runs.
                _ = try await scene.alice.edit(try #require(ids["edit me"]), text: "edited")
                _ = try await scene.alice.delete(try #require(ids["delete me"]))
                _ = try await scene.aliceSends("arrived meanwhile")
                await scene.alice.waitForOutbox()
                _ = try await TransferIntegrationTests.runWithRestarts(&scene, &laptop, harness: harness)
                await faults.duplicateEvents(false)
                let expected = ["hello", "keep me", "edited", "arrived meanwhile"]
                #expect(try await Self.texts(scene.bob, scene.dm.id) == expected, "setting up: the primary shows it so")
                let received = try #require(try await laptop.transfers().first)
                #expect(received.state == .done, "\(received)")
                let settled = await eventually(within: .seconds(20)) {
                    try? await laptop.sync()
                    return (try? await Self.texts(laptop, scene.dm.id)) == expected
                }
                let shown = try await Self.texts(laptop, scene.dm.id)
                #expect(settled, "\(shown)")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        static func texts(_ account: Account, _ channel: ChannelID) async throws -> [String] {
            try await account.timeline(channelID: channel, limit: 100).filter { $0.state == .decrypted }.compactMap(\.text)
        }
    }
}
