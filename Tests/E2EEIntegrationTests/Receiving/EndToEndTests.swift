import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Whole accounts talking through the development server: what one device sends, the others
    /// read — and who must not read, cannot.
    @Suite("End to end")
    struct EndToEndTests {
        private func texts(_ account: Account, _ channelID: ChannelID) async throws -> [String?] {
            try await account.timeline(channelID: channelID).map { $0.state == .decrypted ? $0.text : nil }
        }

        @Test("T6: a DM between two users with two devices each is read on all four devices; the echo marks it delivered")
        func directMessageIsReadEverywhere() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let alice2 = try await harness.login("alice")
                let bob = try await harness.register("bob")
                let bob2 = try await harness.login("bob")
                try await harness.trust([alice, alice2, bob, bob2])
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await harness.accept(dm, on: [alice2, bob, bob2], between: (alice.userID, bob.userID))
                try await alice.send(text: "hello from alice", to: dm.id)
                await alice.waitForOutbox()
                for reader in [alice2, bob, bob2] {
                    try await reader.sync()
                    #expect(try await texts(reader, dm.id) == ["hello from alice"])
                }
                try await bob2.send(text: "hi back", to: dm.id)
                await bob2.waitForOutbox()
                for reader in [alice, alice2, bob] {
                    try await reader.sync()
                    #expect(try await texts(reader, dm.id) == ["hello from alice", "hi back"])
                }
                #expect(try await alice.outboxEntries(states: [.delivered]).count == 1)
                let own = try #require(try await alice.timeline(channelID: dm.id).first)
                #expect(own.isOwn)
            }
        }

        @Test("T11: a group of three reads each other; a member who left cannot read what follows; a joiner cannot read what preceded")
        func groupMembershipBoundsWhatIsReadable() async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.memberLifetime = .zero
                let alice = try await harness.register("alice", configuration: configuration)
                let bob = try await harness.register("bob")
                let carol = try await harness.register("carol")
                let dave = try await harness.register("dave")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await alice.send(text: "welcome", to: group.id)
                await alice.waitForOutbox()
                try await bob.sync()
                try await harness.accept(group, on: [bob, carol])
                try await bob.send(text: "thanks", to: group.id)
                await bob.waitForOutbox()
                for reader in [alice, bob, carol] {
                    try await reader.sync()
                    #expect(try await texts(reader, group.id) == ["welcome", "thanks"])
                }

                try await carol.leave(group.id)
                try await alice.addMember(dave.userID, to: group.id)
                try await alice.send(text: "carol is gone, dave is here", to: group.id)
                await alice.waitForOutbox()

                // Carol re-joins (anyone can, docs/spec/server-api.md) to read the ciphertext: no key reached her.
                try await harness.reader(of: carol).joinChannel(id: group.id)
                try await carol.sync()
                let carolSees = try await carol.timeline(channelID: group.id)
                #expect(carolSees.map(\.text).contains("carol is gone, dave is here") == false)
                #expect(carolSees.last?.state == .undecryptable(.sentAfterLeaving))  // not pending forever (issue 17 item 4)

                _ = try await dave.acceptChannel(group.id)
                try await dave.sync()
                let daveSees = try await dave.timeline(channelID: group.id)
                #expect(daveSees.compactMap { $0.state == .decrypted ? $0.text : nil } == ["carol is gone, dave is here"])
                #expect(daveSees.count == 3)
            }
        }

        @Test("a message arrives over the socket while connected, without a manual sync")
        func realtimeDeliveryDecrypts() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                let events = bob.events()
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                let connected = await firstEvent(in: events) { $0 == .connection(.connected) }
                #expect(connected != nil)
                try await alice.send(text: "live", to: dm.id)
                await alice.waitForOutbox()
                let arrived = await firstEvent(in: events, within: 10) {
                    $0.timelineChanges.contains { $0.channelID == dm.id && $0.kind == .inserted }
                }
                #expect(arrived != nil)
                #expect(try await texts(bob, dm.id) == ["live"])
                await bob.disconnect()
            }
        }
    }
}
