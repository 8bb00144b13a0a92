import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// A device that only listens learns who joined and left its channels (the server pushes no
    /// membership change, docs/spec/server-api.md §A5.1): its connection's periodic membership
    /// watch re-reads the member lists and runs the comparison a send would.
    @Suite("Membership learned while listening")
    struct ListeningMembershipTests {
        @Test("a stranger joins a group bob only listens to: bob's account holds and announces him without sending anything")
        func listenerLearnsAJoin() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await alice.send(text: "hello", to: group.id)
                await alice.waitForOutbox()
                try await harness.accept(group, on: [bob])

                let events = bob.events()
                var policy = ConnectionPolicy.standard
                policy.followUpCatchUp = .milliseconds(100)
                policy.membershipWatchInterval = .milliseconds(500)
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL), policy: policy)
                // The first watch records the members bob has; then mallory joins.
                try await Task.sleep(for: .milliseconds(800))
                try await harness.reader(of: mallory).joinChannel(id: group.id)
                let held = await firstEvent(in: events, within: 15) { if case .identity(.memberHeld) = $0 { true } else { false } }
                #expect(held == .identity(.memberHeld(channelID: group.id, userID: mallory.userID)))
                #expect(try await bob.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
                #expect(try await bob.outboxEntries(states: Set(OutboxState.allCases)).isEmpty, "nothing was sent")
                await bob.disconnect()
            }
        }
    }
}
