import E2EEDevServer
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 6: held devices an app can act on — one entry per device, and our own new
    /// login noticed when we catch up, not only when we next send.
    @Suite("Held devices for the app")
    struct HeldDeviceListTests {
        @Test("a new login of alice's is held on her phone at its next catch-up, before any send, and listed once with its name and both channels")
        func ownNewLoginNoticedOnCatchUp() async throws {
            try await MessagingHarness.with { harness in
                let phone = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                _ = try await harness.acceptedDM(phone, bob)
                let group = try await phone.createGroup(name: "team", members: [carol.userID])
                _ = try await carol.acceptChannel(group.id)
                let dm = try await phone.openDirectMessage(with: bob.userID)
                try await phone.send(text: "hi bob", to: dm.id)
                try await phone.send(text: "hi team", to: group.id)
                await phone.waitForOutbox()

                let laptop = try await harness.login("alice", deviceName: "alice-laptop", configuration: MessagingHarness.recipientConfiguration)
                try await phone.sync()
                let held = try await phone.heldDevices()
                #expect(held.map(\.device.deviceID) == [laptop.deviceID], "the phone did not notice its own new login")
                #expect(held.first?.name == "alice-laptop")
                #expect(Set(held.first?.channels ?? []) == [dm.id, group.id])
                #expect(try await phone.pendingRecipients().count == 2, "one standing per channel, one entry per device")
            }
        }
    }
}
