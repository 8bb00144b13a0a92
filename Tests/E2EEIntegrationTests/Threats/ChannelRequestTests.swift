import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5.9–§5.10: a DM this device did not open is a request — nothing
    /// sent, its messages waiting — until the app accepts it; declining sends nothing ever.
    @Suite("Channel requests")
    struct ChannelRequestTests {
        @Test("a DM request accepted: its waiting message is read, the participant is the candidate, and it works both ways")
        func acceptedRequestWorksBothWays() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "hi bob", to: dm.id)
                await alice.waitForOutbox()

                #expect(try await readableTexts(bob, dm.id).isEmpty)
                #expect(try await bob.directMessageParticipant(dm.id) == nil)
                // Refused before anything is queued (issue 43 item 13): the outbox stays empty.
                await #expect(throws: MessagingError.channelNotAccepted(channelID: dm.id)) { try await bob.send(text: "too early", to: dm.id) }
                #expect(try await bob.outboxEntries(states: Set(OutboxState.allCases)).isEmpty)
                #expect(try await bob.channelRequests().map(\.candidate) == [alice.userID])
                #expect(try await bob.acceptChannel(dm.id) == [alice.userID])
                #expect(try await bob.directMessageParticipant(dm.id) == alice.userID)
                #expect(try await bob.channelRequests().isEmpty)
                #expect(try await readableTexts(bob, dm.id) == ["hi bob"])

                try await bob.send(text: "hi alice", to: dm.id)
                await bob.waitForOutbox()
                #expect(try await readableTexts(alice, dm.id) == ["hi bob", "hi alice"])
            }
        }

        @Test("a declined DM stays silent: nothing is sent in it and its messages are never shown; a declined candidate gives way to the next")
        func declinedRequestStaysSilent() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "buy my stuff", to: dm.id)
                await alice.waitForOutbox()
                _ = try await readableTexts(bob, dm.id)

                try await bob.declineChannel(dm.id)   // the candidate (alice) is declined
                #expect(try await bob.channelRequests().map(\.candidate) == [nil])
                try await bob.declineChannel(dm.id)   // no candidate left: the DM itself
                #expect(try await bob.channelRequests().isEmpty)
                await #expect(throws: MessagingError.channelNotAccepted(channelID: dm.id)) { try await bob.send(text: "never", to: dm.id) }
                #expect(try await bob.outboxEntries(states: Set(OutboxState.allCases)).isEmpty)
                try await alice.send(text: "still there?", to: dm.id)
                await alice.waitForOutbox()
                #expect(try await readableTexts(bob, dm.id).isEmpty)
                #expect(try await harness.serverMessages(dm.id, as: harness.reader(of: alice)).count == 2)
            }
        }

        @Test("our own devices need no request: our DM payloads name the other participant (with), which fixes it on our other devices")
        func ownDevicesFixTheParticipantFromWith() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let alice2 = try await harness.login("alice", configuration: MessagingHarness.recipientConfiguration)
                try await harness.trust([alice, alice2])
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.openDirectMessage(with: alice.userID)
                try await alice.send(text: "hi bob", to: dm.id)
                await alice.waitForOutbox()
                let posted = try #require(try await alice.timeline(channelID: dm.id).first)
                let own = try #require(try await alice.store.message(id: posted.messageID.rawValue)?.plaintext)
                #expect(try MessagePayload(json: own).with?.text == bob.userID.rawValue)

                #expect(try await readableTexts(alice2, dm.id) == ["hi bob"])
                #expect(try await alice2.directMessageParticipant(dm.id) == bob.userID)
                #expect(try await alice2.channelRequests().isEmpty)
                try await bob.send(text: "hi alice", to: dm.id)
                await bob.waitForOutbox()
                #expect(try await readableTexts(alice2, dm.id) == ["hi bob", "hi alice"])
                try await alice2.send(text: "from the laptop", to: dm.id)
                await alice2.waitForOutbox()
                #expect(try await readableTexts(bob, dm.id) == ["hi bob", "hi alice", "from the laptop"])
            }
        }
        @Test("a group request's messages wait unread until it is accepted; a declined group stays silent; our own device's acceptance accepts it here")
        func groupRequestWaitsUntilAccepted() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let bob2 = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await harness.trust([bob, bob2])
                let group = try await alice.createGroup(name: "spam?", members: [bob.userID])
                try await alice.send(text: "buy now", to: group.id)
                await alice.waitForOutbox()

                try await bob.sync()
                #expect(try await bob.timeline(channelID: group.id).map(\.state) == [.pending], "waits, not decrypted")
                #expect(try await bob.channelRequests().map(\.channel.id) == [group.id])
                try await bob.declineChannel(group.id)
                try await alice.send(text: "really, buy now", to: group.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await readableTexts(bob, group.id).isEmpty, "a declined group stays silent")

                // Accepted on bob's other device: its announcement accepts the group on this one too.
                try await bob2.sync()
                _ = try await bob2.acceptChannel(group.id)
                await bob2.waitForOutbox()
                #expect(try await readableTexts(bob2, group.id) == ["buy now", "really, buy now"])
                try await bob.sync()
                #expect(try await bob.channelRequests().isEmpty)
                #expect(try await readableTexts(bob, group.id) == ["buy now", "really, buy now"])
            }
        }
    }
}
