import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Socket events a hostile server forges: a `created_at` far in the future must not move the
    /// channel's verified mark past this device's clock (guarantee 1 stays whole), and an event
    /// naming someone else's message as a duplicate of ours must not erase it.
    @Suite("Forged socket events")
    struct ForgedEventTests {
        /// A `message.new` frame with these fields, as the server sends it.
        private static func frame(id: String, channelID: String, senderID: String, deviceID: String, content: String, contentType: String = "text",
                                  createdAt: String) -> String {
            let message: [String: Any] = [
                "id": id, "channel_id": channelID, "sender_id": senderID, "sender_device_id": deviceID, "content": content,
                "content_type": contentType, "protocol_version": 2, "reply_to_id": NSNull(), "attachments": [Any](),
                "edited_at": NSNull(), "created_at": createdAt,
            ]
            let data = (try? JSONSerialization.data(withJSONObject: ["type": "message.new", "message": message])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }

        /// A `typing.start` frame: handled after every frame sent before it, so seeing it means
        /// those were applied.
        private static func typingFrame(userID: String, channelID: String) -> String {
            #"{"type":"typing.start","user_id":"\#(userID)","channel_id":"\#(channelID)"}"#
        }

        /// Connects `account` and waits until its socket's catch-up ran (a frame sent after it
        /// was handled). No follow-up catch-up, deaf-socket check, echo check or membership watch
        /// runs later: the only requests and frames are the ones the test causes.
        private static func connect(_ account: Account, _ harness: MessagingHarness, channelID: ChannelID) async -> AccountMonitor {
            let monitor = AccountMonitor(account, channelIDs: [channelID])
            var policy = ConnectionPolicy.standard
            policy.followUpCatchUp = .seconds(600)
            policy.deafCheckInterval = nil
            policy.echoCheckInterval = nil
            policy.membershipWatchInterval = nil
            await account.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL), policy: policy)
            #expect(await monitor.waitForConnection(.connected))
            #expect(await deliver(nil, to: account, channelID: channelID.rawValue, harness))
            return monitor
        }

        /// Sends `frame` to `account`'s user, then a typing frame, and waits until the typing
        /// frame was handled (so `frame` was too).
        private static func deliver(_ frame: String?, to account: Account, channelID: String, _ harness: MessagingHarness) async -> Bool {
            let typed = Watched(false)
            let events = account.events()
            let watcher = Task {
                for await event in events {
                    if case .typing(_, let channel, _) = event, channel.rawValue == channelID {
                        typed.update { $0 = true }
                        return
                    }
                }
            }
            if let frame { await harness.server.faults.sendRawFrame(frame, toUser: account.userID.rawValue) }
            await harness.server.faults.sendRawFrame(typingFrame(userID: UUID().uuidString.lowercased(), channelID: channelID), toUser: account.userID.rawValue)
            let seen = await typed.wait(limit: .seconds(20)) { $0 }
            watcher.cancel()
            return seen
        }

        @Test("a message.new dated 2099 followed by normal traffic: every later message is read")
        func futureTimestampLosesNothing() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "before", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let monitor = await Self.connect(bob, harness, channelID: dm.id)

                let forged = Self.frame(id: UUID().uuidString.lowercased(), channelID: dm.id.rawValue, senderID: alice.userID.rawValue, deviceID: alice.deviceID.rawValue,
                                        content: "AAAA", createdAt: "2099-01-01T00:00:00.000000Z")
                #expect(await Self.deliver(forged, to: bob, channelID: dm.id.rawValue, harness))
                await bob.disconnect()

                // More than one page (50) while Bob is away.
                let texts = (1...60).map { "later \($0)" }
                for text in texts { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()

                let read = try await bob.timeline(channelID: dm.id, limit: 500).compactMap { $0.state == .decrypted ? $0.text : nil }
                #expect(read == ["before"] + texts)
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("an event that names Bob's message as Alice's duplicate (and a 404 for her DELETE) leaves Bob's message in Alice's timeline")
        func duplicateCleanupCannotEraseAnothersMessage() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "alice one", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                try await bob.send(text: "bob one", to: dm.id)
                await bob.waitForOutbox()
                try await alice.sync()
                let onServer = try await harness.serverMessages(dm.id, as: harness.reader(of: alice))
                let alicesOwn = try #require(onServer.first { $0.senderID == alice.userID })
                let bobs = try #require(onServer.first { $0.senderID == bob.userID })
                #expect(try await alice.timeline(channelID: dm.id).first { $0.messageID == bobs.id }?.text == "bob one")
                let monitor = await Self.connect(alice, harness, channelID: dm.id)

                // Bob's id, Alice's user and device, Alice's earlier bytes: a "second copy" of hers.
                let forged = Self.frame(id: bobs.id.rawValue, channelID: dm.id.rawValue, senderID: alice.userID.rawValue, deviceID: alice.deviceID.rawValue,
                                        content: alicesOwn.content, contentType: alicesOwn.contentType ?? "text",
                                        createdAt: "2026-01-01T00:00:00.000000Z")
                await harness.server.faults.failNextRequests(1, status: 404)  // her DELETE of "the copy" answers 404
                #expect(await Self.deliver(forged, to: alice, channelID: dm.id.rawValue, harness))

                let item = try await alice.timeline(channelID: dm.id).first { $0.messageID == bobs.id }
                #expect(item?.text == "bob one", "Bob's message is still in Alice's timeline")
                #expect(try await harness.serverMessages(dm.id, as: harness.reader(of: alice)).contains { $0.id == bobs.id })
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
