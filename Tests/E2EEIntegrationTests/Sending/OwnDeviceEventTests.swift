import E2EEDevServer
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// The identity events a device publishes name other devices, never itself: the server lists
    /// this device among its user's bundles, and pinning it is not news to anyone.
    @Suite("Identity events about this device")
    struct OwnDeviceEventTests {
        @Test("a phone that sends after its user's second login never hears newDevice for itself")
        func noNewDeviceForOurselves() async throws {
            try await MessagingHarness.with { harness in
                let phone = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let laptop = try await harness.login("alice")
                let events = phone.events()
                let dm = try await phone.openDirectMessage(with: bob.userID)
                try await harness.trust([phone, laptop, bob])
                try await phone.send(text: "hello", to: dm.id)
                await phone.waitForOutbox()
                let aboutItself = await firstEvent(in: events, within: 2) {
                    if case .identity(.newDevice(_, let device)) = $0 { device == phone.deviceID } else { false }
                }
                #expect(aboutItself == nil, "newDevice for this very device")
                await laptop.shutdown()
            }
        }
    }
}
