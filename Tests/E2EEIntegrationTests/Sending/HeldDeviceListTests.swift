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

        @Test("a new login meets every contact without a 'new device' event for each of their devices; a contact's later login is one")
        func loginFiresNoNewDeviceForKnownContacts() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let bobTablet = try await harness.login("bob", deviceName: "tablet")
                try await harness.trust([bob, bobTablet])
                let dm = try await harness.acceptedDM(alice, bob)
                _ = try await bobTablet.openDirectMessage(with: alice.userID)
                try await bob.send(text: "one", to: dm.id)
                try await bobTablet.send(text: "two", to: dm.id)
                await bob.waitForOutbox()
                await bobTablet.waitForOutbox()

                let laptop = try await harness.login("alice", deviceName: "laptop")
                let events = laptop.events()
                try await laptop.sync()
                _ = try await laptop.devices(of: bob.userID)
                let atLogin = await Self.newDevices(in: events, within: 1)
                #expect(atLogin.isEmpty, "a login announced every device of a contact: \(atLogin)")

                let bobLaptop = try await harness.login("bob", deviceName: "bob-laptop")
                let later = laptop.events()
                _ = try await laptop.devices(of: bob.userID)
                #expect(await Self.newDevices(in: later, within: 1) == [bobLaptop.deviceID])
            }
        }

        /// The devices announced as new on `events` within `seconds`.
        static func newDevices(in events: AsyncStream<AccountEvent>, within seconds: Double) async -> [DeviceID] {
            var found: [DeviceID] = []
            while let event = await firstEvent(in: events, within: seconds, where: { if case .identity(.newDevice) = $0 { true } else { false } }) {
                if case .identity(.newDevice(_, let device)) = event { found.append(device) }
            }
            return found
        }
    }
}
