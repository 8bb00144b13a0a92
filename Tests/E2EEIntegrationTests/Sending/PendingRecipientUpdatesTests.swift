import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// `Account.pendingRecipientUpdates()`: the pending list an approval screen binds to, updated
    /// when a device is held and when it is approved — no re-read after every send.
    @Suite("Pending recipients to observe")
    struct PendingRecipientUpdatesTests {
        @Test("the list starts as it is, gains Bob's new laptop when a send holds it, and loses it when Alice approves it", .timeLimit(.minutes(1)))
        func pendingListFollowsHoldAndApproval() async throws {
            try await MessagingHarness.with { harness in
                let configuration = NewDeviceSendTests.appDefaults
                let (alice, _, dm) = try await NewDeviceSendTests.afterFirstContact(harness)

                var updates = alice.pendingRecipientUpdates().makeAsyncIterator()
                #expect(await updates.next() == [], "first the list as it is")

                let laptop = try await harness.login("bob", configuration: configuration)
                _ = try await alice.send(text: "after your login", to: dm.id)  // the comparison holds the laptop
                let held = await updates.next()
                #expect(held?.map(\.device.deviceID) == [laptop.deviceID])
                #expect(held?.map(\.channelID) == [dm.id])

                try await alice.approveDevice(laptop.deviceID)
                #expect(await updates.next() == [], "approved: nothing waits any more")
                await alice.waitForOutbox()
                await alice.shutdown()
            }
        }
    }
}
