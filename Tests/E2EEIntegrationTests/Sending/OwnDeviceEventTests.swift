import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
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

        @Test("a device first met through its first prekey message is announced once, to each other device, never to itself")
        func newDeviceOncePerDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.openDirectMessage(with: alice.userID)
                try await alice.send(text: "hello", to: dm.id)
                await alice.waitForOutbox()
                let announced = Watched<[String: [String]]>([:])  // observer → devices announced to it
                func count(_ account: Account, as label: String) -> Task<Void, Never> {
                    let events = account.events()
                    return Task {
                        for await event in events {
                            if case .identity(.newDevice(_, let device)) = event { announced.update { $0[label, default: []].append(device.rawValue) } }
                        }
                    }
                }
                let watchers = [count(alice, as: "alice"), count(bob, as: "bob")]
                defer { watchers.forEach { $0.cancel() } }

                // Bob's laptop writes first: Alice meets it through its prekey message.
                let laptop = try await harness.login("bob")
                let ownWatcher = count(laptop, as: "laptop")
                defer { ownWatcher.cancel() }
                _ = try await laptop.openDirectMessage(with: alice.userID)
                try await laptop.send(text: "from the laptop", to: dm.id)
                await laptop.waitForOutbox()
                try await alice.sync()
                #expect(try await alice.timeline(channelID: dm.id).compactMap(\.text) == ["hello", "from the laptop"])
                try await bob.sync()
                // Later reads of the device lists must not announce it again.
                _ = try await alice.devices(of: bob.userID)
                _ = try await alice.safetyNumber(with: bob.userID)
                try await alice.send(text: "to both of you", to: dm.id)
                await alice.waitForOutbox()
                _ = try await bob.devices(of: bob.userID)
                try await Task.sleep(for: .milliseconds(300))  // any late duplicate would be published by now

                let seen = announced.value
                #expect(seen["alice"] == [laptop.deviceID.rawValue], "Alice: \(seen)")
                // Bob's phone meets Alice's phone (her first message) and the laptop, each through a prekey
                // message; only the laptop is news: the devices of a user met for the first time are
                // not announced (a new login would otherwise announce every contact's devices).
                #expect(seen["bob"] == [laptop.deviceID.rawValue], "Bob's phone: \(seen)")
                #expect(!(seen["laptop"] ?? []).contains(laptop.deviceID.rawValue), "the laptop heard about itself")
                for (observer, devices) in seen {
                    #expect(Set(devices).count == devices.count, "\(observer) heard of a device twice: \(devices)")
                }
                await laptop.shutdown()
            }
        }
    }
}
