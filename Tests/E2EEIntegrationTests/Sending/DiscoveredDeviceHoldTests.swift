import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5.12: a device listed after first contact is pending from the
    /// moment this device discovers it — here through its first message — not from the next send
    /// that happens to compare the channel.
    @Suite("A device pending from its discovery")
    struct DiscoveredDeviceHoldTests {
        @Test("Bob's new laptop writes first: Alice's pending list shows it before she sends anything, and her next send holds it without surfacing it twice",
              .timeLimit(.minutes(1)))
        func deviceMetThroughItsMessageIsPendingAtOnce() async throws {
            try await MessagingHarness.with { harness in
                let configuration = NewDeviceSendTests.appDefaults
                let (alice, bob, dm) = try await NewDeviceSendTests.afterFirstContact(harness)
                let events = alice.events()
                var updates = alice.pendingRecipientUpdates().makeAsyncIterator()
                #expect(await updates.next() == [], "first the list as it is")

                let laptop = try await harness.login("bob", configuration: configuration)
                _ = try await laptop.openDirectMessage(with: alice.userID)
                try await laptop.send(text: "from the laptop", to: dm.id)
                await laptop.waitForOutbox()
                try await alice.sync()  // Alice meets the laptop through its message, and sends nothing

                let pending = await updates.next()
                #expect(pending?.map(\.device.deviceID) == [laptop.deviceID], "the laptop is pending without a send")
                #expect(pending?.map(\.channelID) == [dm.id])
                let surfaced = await firstEvent(in: events, within: 2) {
                    if case .identity(.recipientAdded(dm.id, _, laptop.deviceID, held: true)) = $0 { true } else { false }
                }
                #expect(surfaced != nil, "the hold is told as an identity event")
                #expect(try await alice.timeline(channelID: dm.id).compactMap(\.text) == ["hello phone", "from the laptop"])

                let report = try await alice.send(text: "phone only until I approve", to: dm.id)
                await alice.waitForOutbox()
                #expect(report.recipients.held.map(\.deviceID) == [laptop.deviceID])
                #expect(!report.recipients.surfaced.contains { $0.deviceID == laptop.deviceID }, "surfaced once, at discovery")
                let posted = try #require(try await harness.serverMessages(dm.id, as: harness.reader(of: bob)).last)
                #expect(try recipientDevices(of: posted) == [bob.deviceID])
                await laptop.shutdown()
                await alice.shutdown()
            }
        }
    }
}
