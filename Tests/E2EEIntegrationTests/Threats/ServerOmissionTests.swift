import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 9 against a server that erases by omission: rows left out of
    /// two reads a few seconds apart, and `message.delete` events, mark messages "removed from
    /// the server"; no plaintext is erased, and a row that comes back loses its mark.
    @Suite("9. The server's deletes are hints")
    struct ServerOmissionTests {
        /// The rows' confirmation window (DeleteInference.confirmAfter) plus a margin: the
        /// second read must come at least that long after the first.
        private static let confirmationWait: UInt64 = 2_200_000_000

        private static func items(_ account: Account, _ channelID: ChannelID) async throws -> [TimelineItem] {
            try await account.timeline(channelID: channelID, limit: 500)
        }

        /// Two catch-up reads far enough apart to confirm what both left out.
        private static func twoReads(_ account: Account) async throws {
            try await account.sync()
            try await Task.sleep(nanoseconds: confirmationWait)
            try await account.sync()
        }

        @Test("a page pair leaving out 29 of 31 messages: all 31 stay readable, the 29 marked; when the rows come back the marks go")
        func omissionNeverErases() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                let texts = (1...31).map { "message \($0)" }
                for text in texts { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()
                let stored = try await Self.items(bob, dm.id)
                #expect(stored.map(\.text) == texts)
                let omitted = Set(stored.dropFirst().dropLast().map(\.messageID))
                await harness.server.faults.omitRows(ofChannel: dm.id.rawValue, Set(omitted.map(\.rawValue)))

                try await Self.twoReads(bob)

                let after = try await Self.items(bob, dm.id)
                #expect(after.map(\.text) == texts, "no plaintext erased")
                #expect(after.allSatisfy { $0.state == .decrypted })
                #expect(Set(after.filter(\.removedFromServer).map(\.messageID)) == omitted)

                await harness.server.faults.omitRows(ofChannel: dm.id.rawValue, nil)
                try await bob.sync()
                #expect(try await Self.items(bob, dm.id).filter(\.removedFromServer).isEmpty, "the rows came back: no mark")
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a message received live, later left out of the pages after the socket dropped: kept, marked")
        func liveMessageLeftOutLater() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "before", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let monitor = AccountMonitor(bob, channelIDs: [dm.id])
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                #expect(await monitor.waitForConnection(.connected))
                try await alice.send(text: "live", to: dm.id)
                await alice.waitForOutbox()
                #expect(await monitor.waitForReadable([dm.id: 2], limit: .seconds(20)), "received on the socket")
                await bob.disconnect()
                try await alice.send(text: "after", to: dm.id)
                await alice.waitForOutbox()
                let live = try #require(try await Self.items(bob, dm.id).first { $0.text == "live" })
                await harness.server.faults.omitRows(ofChannel: dm.id.rawValue, [live.messageID.rawValue])

                try await Self.twoReads(bob)

                let after = try await Self.items(bob, dm.id)
                #expect(after.map(\.text) == ["before", "live", "after"])
                #expect(after.first { $0.messageID == live.messageID }?.removedFromServer == true)
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a message.delete event from the server marks the message removed; its text stays")
        func deleteEventIsAHint() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "kept", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let message = try #require(try await Self.items(bob, dm.id).first)
                let removed = Watched(false)
                let events = bob.events()
                let watcher = Task {
                    for await event in events {
                        if event.timelineChanges.contains(where: { $0.messageID == message.messageID && $0.kind == .removedFromServer }) {
                            removed.update { $0 = true }
                            return
                        }
                    }
                }
                let monitor = AccountMonitor(bob, channelIDs: [dm.id])
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                #expect(await monitor.waitForConnection(.connected))
                let frame = #"{"type":"message.delete","message_id":"\#(message.messageID)","channel_id":"\#(dm.id)"}"#
                await harness.server.faults.sendRawFrame(frame, toUser: bob.userID.rawValue)
                #expect(await removed.wait(limit: .seconds(20)) { $0 })
                watcher.cancel()
                let after = try #require(try await Self.items(bob, dm.id).first)
                #expect(after.text == "kept")
                #expect(after.state == .decrypted)
                #expect(after.removedFromServer)
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
