import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5.12–§5.13 with the account's default configuration (device lists
    /// as an app caches them): a device that logs in just before a send is compared like every
    /// other listed device — included, held or surfaced, never skipped in silence.
    @Suite("A send right after another device's login")
    struct NewDeviceSendTests {
        /// The app's defaults, with the outbox's waits taken out.
        static let appDefaults = AccountConfiguration(outbox: OutboxPolicy(maxAttempts: 3, backoff: [.zero, .zero]), sleep: { _ in })

        /// Alice and Bob with ``appDefaults``, in a DM where Alice has sent "hello phone" once:
        /// first contact made, Bob's phone known and his device list cached.
        static func afterFirstContact(_ harness: MessagingHarness) async throws -> (alice: Account, bob: Account, dm: ChatChannel) {
            let alice = try await harness.register("alice", configuration: appDefaults)
            let bob = try await harness.register("bob", configuration: appDefaults)
            let dm = try await harness.acceptedDM(alice, bob)
            try await alice.send(text: "hello phone", to: dm.id)
            await alice.waitForOutbox()
            return (alice, bob, dm)
        }

        @Test("Alice sends to Bob within 50 ms of his laptop's login: the laptop is held and surfaced in the report, never left out unseen")
        func sendRightAfterLoginSeesTheNewDevice() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, dm) = try await Self.afterFirstContact(harness)

                let laptop = try await harness.login("bob", configuration: Self.appDefaults)
                let loggedIn = ContinuousClock.now
                let report = try await alice.send(text: "right after your login", to: dm.id)
                let started = ContinuousClock.now - loggedIn
                await alice.waitForOutbox()

                let posted = try #require(try await harness.serverMessages(dm.id, as: harness.reader(of: bob)).last)
                let included = try recipientDevices(of: posted).contains(laptop.deviceID)
                let held = report.recipients.held.contains { $0.deviceID == laptop.deviceID }
                let surfaced = report.recipients.surfaced.contains { $0.deviceID == laptop.deviceID }
                #expect(included || held || surfaced, "the laptop was neither a recipient, nor held, nor surfaced (send began \(started) after login)")
                // §5.12: a device listed after first contact is held until approved, and surfaced.
                #expect(held && surfaced && !included)
                #expect(try recipientDevices(of: posted) == [bob.deviceID])
                #expect(try await alice.pendingRecipients().map(\.device.deviceID) == [laptop.deviceID])
            }
        }
    }
}
