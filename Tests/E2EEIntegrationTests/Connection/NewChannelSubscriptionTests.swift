import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 3 (docs/spec/sync.md §11.5): on the reference server a channel created
    /// after the socket opened is not subscribed, and `channel.new` goes to the added members
    /// only — so the creator's own socket must subscribe it.
    @Suite("A channel created while connected")
    struct NewChannelSubscriptionTests {
        @Test("the creator of a group gets a member's reply over her socket, without a reconnect")
        func creatorHearsReplyInNewGroup() async throws {
            var quirks = DevServerQuirks.none
            quirks.noAutoSubscribeToLaterChannels = true
            try await MessagingHarness.with(.testing(quirks: quirks)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let monitor = AccountMonitor(alice, channelIDs: [])
                // No follow-up catch-up of every channel after the connect: only the socket (or a
                // catch-up of the new channel itself) can bring the reply.
                await alice.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL),
                                    policy: ConnectionPolicy(followUpCatchUp: .seconds(3_600)))
                #expect(await monitor.waitForConnection(.connected))
                let states = Watched<[ConnectionState]>([])
                let recorder = Task { for await event in alice.events() { if case .connection(let state) = event { states.update { $0.append(state) } } } }

                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                _ = try await bob.acceptChannel(group.id)
                let inGroup = AccountMonitor(alice, channelIDs: [group.id])
                try await bob.send(text: "reply", to: group.id)
                await bob.waitForOutbox()
                #expect(await inGroup.waitForReadable([group.id: 1], limit: .seconds(20)), "alice never received bob's reply")
                #expect(try await alice.timeline(channelID: group.id, limit: 10).compactMap(\.text) == ["reply"])
                #expect(!states.value.contains { $0 != .connected }, "the socket was reconnected: \(states.value)")
                inGroup.stop()
                recorder.cancel()
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
