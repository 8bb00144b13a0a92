import E2EEMessaging
import Testing

extension IntegrationTests {
    /// What a timeline row says besides the message (docs/integrating.md "Showing a timeline"):
    /// our own messages' delivery state, joined from the outbox, and a new device's history.
    @Suite("Timeline rows")
    struct TimelineRowTests {
        @Test("The timeline shows our own messages with their delivery state, and a new device's history as sent before it was added")
        func timelineRowsCarryDeliveryAndHistoryBeforeThisDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                let report = try await alice.send(text: "before the laptop", to: dm.id)
                #expect(report.state == .queued)
                await alice.waitForOutbox()

                let sent = try #require(try await alice.timeline(channelID: dm.id).last)
                #expect(sent.isOwn && sent.text == "before the laptop")
                #expect(sent.delivery == .sent || sent.delivery == .delivered)
                try await alice.sync()  // our own echo: delivered
                #expect(try await alice.timeline(channelID: dm.id).last?.delivery == .delivered)
                let outbox = try await alice.outboxEntries(states: [.delivered])
                #expect(outbox.map(\.localID) == [report.localID])
                #expect(outbox.first?.serverMessageID == sent.messageID)

                try await bob.sync()
                let received = try #require(try await bob.timeline(channelID: dm.id).last)
                #expect(received.delivery == nil, "only our own messages carry a delivery state")

                let laptop = try await harness.login("bob", deviceName: "laptop")
                try await harness.accept(dm, on: [laptop], between: (alice.userID, bob.userID))
                try await laptop.sync()
                let history = try await laptop.timeline(channelID: dm.id)
                #expect(history.map(\.messageID) == [sent.messageID])
                #expect(history.first?.state == .sentBeforeThisDevice)
            }
        }

        @Test("In a group, a new device's history from before it was added is shown as such, not as waiting for a key")
        func groupHistoryBeforeThisDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.send(text: "before the laptop", to: group.id)
                await alice.waitForOutbox()

                let laptop = try await harness.login("bob", deviceName: "laptop")
                try await harness.accept(group, on: [laptop])
                try await laptop.sync()
                let history = try await laptop.timeline(channelID: group.id)
                #expect(history.map(\.state) == [.sentBeforeThisDevice], "\(history.map(\.state))")
            }
        }

        @Test("a DM message sent after bob's laptop logged in, before alice approved it, shows as sent before approval, not as an error; the next one after the approval reads")
        func dmBeforeApprovalIsNoError() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "first", to: dm.id)
                await alice.waitForOutbox()
                let laptop = try await harness.login("bob", deviceName: "laptop", configuration: MessagingHarness.recipientConfiguration)
                _ = try await laptop.openDirectMessage(with: alice.userID)
                try await alice.send(text: "laptop held", to: dm.id)  // holds the laptop: not addressed to it
                await alice.waitForOutbox()
                _ = try await alice.approveDevice(laptop.deviceID)
                try await alice.send(text: "laptop approved", to: dm.id)
                await alice.waitForOutbox()

                try await laptop.sync()
                let rows = try await laptop.timeline(channelID: dm.id)
                #expect(rows.map(\.state) == [.sentBeforeThisDevice, .sentBeforeApproval, .decrypted], "\(rows.map(\.state))")
                #expect(rows.last?.text == "laptop approved")
            }
        }
    }
}
