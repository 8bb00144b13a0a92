import E2EEDevServer
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 42 item 9: one member's large messages — each within protocol §8.1 — must not make
    /// a group unreadable. Pages over the client's 16 MiB cap are read again in smaller pages.
    @Suite("Oversized pages")
    struct OversizedPageTests {
        @Test("40 messages of 500,000 characters: every member still catches up, reads the group and sends in it")
        func largeMessagesDoNotBlockTheGroup() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let mallory = try await harness.register("mallory")
                try await harness.trust([alice, bob, mallory])
                let group = try await alice.createGroup(name: "team", members: [bob.userID, mallory.userID])
                try await harness.accept(group, on: [bob, mallory])
                try await bob.send(text: "before", to: group.id)
                await bob.waitForOutbox()
                try await alice.sync()

                try await Self.flood(group.id, as: try await harness.reader(of: mallory), device: mallory.deviceID, count: 40, characters: 500_000)
                try await bob.send(text: "after the flood", to: group.id)
                await bob.waitForOutbox()

                #expect(try await readableTexts(alice, group.id).contains("after the flood"))
                try await alice.send(text: "still here", to: group.id)
                await alice.waitForOutbox()
                #expect(try await readableTexts(bob, group.id).contains("still here"))
                #expect(try await alice.outboxEntries(states: [.failed]).isEmpty, "a send in the group failed")
            }
        }

        /// Posts `count` messages of `characters` characters (not envelopes: receivers refuse
        /// them one by one) as `device`.
        static func flood(_ channelID: ChannelID, as poster: any ChatServerAPI, device: DeviceID, count: Int, characters: Int) async throws {
            let content = String(repeating: "A", count: characters)
            for _ in 0..<count {
                _ = try await poster.sendMessage(channelID: channelID, OutgoingMessage(content: content, contentType: "e2ee.group", protocolVersion: 2,
                                                                                      senderDeviceID: device))
            }
        }
    }
}
