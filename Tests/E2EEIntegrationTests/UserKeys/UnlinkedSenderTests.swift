import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.7–§10.8 (text 1.3): messages from a device of a user with a pinned
    /// key that the key does not link wait under `unlinked:<user>/<device>`, and go through once
    /// the device is linked.
    @Suite("Messages from unlinked devices")
    struct UnlinkedSenderTests {
        /// A certificate under `userKey` for `account`'s device, current for 20 days.
        static func certificate(_ account: Account, under userKey: Ed25519.PrivateKey, epoch: UInt32 = 1) throws -> DeviceCertificate {
            try DeviceCertificate.issue(by: userKey, userID: WireUUID(text: account.userID.rawValue), deviceID: WireUUID(text: account.deviceID.rawValue),
                                        identity: account.identity, epoch: epoch, notAfter: UInt32(Date().timeIntervalSince1970) + 20 * 86_400)
        }

        @Test("a new login of a keyed contact that its key does not link: its DM waits, then decrypts once it is certified")
        func unlinkedDeviceWaitsUntilLinked() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let phone = try await harness.register("bob")
                let laptop = try await harness.login("bob")
                // A third login of Bob's, made before his devices carry certificates (a login after
                // them would be unlinked on its own side, §10.7, and send nothing).
                let stranger = try await harness.login("bob")
                let userKey = Ed25519.PrivateKey()
                for device in [phone, laptop] { try await device.debugPublishCertificate(try Self.certificate(device, under: userKey).bytes) }
                let dm = try await alice.openDirectMessage(with: phone.userID)
                let first = try await alice.send(text: "hello bob", to: dm.id)
                #expect(first.state != .failed, "\(first.failureReason ?? "")")
                #expect(try await alice.userKey(of: phone.userID).state == .pinned)
                #expect(Set(try await alice.linkedDevices(of: phone.userID)) == [phone.deviceID, laptop.deviceID])

                // The third login of Bob, not certified: the server lists it, Bob's key does not link it.
                try await harness.accept(dm, on: [stranger], between: (alice.userID, phone.userID))
                try await stranger.send(text: "from the unlinked login", to: dm.id)
                await stranger.waitForOutbox()
                try await alice.sync()
                let waiting = try await alice.timeline(channelID: dm.id).filter { $0.state == .pending }
                #expect(waiting.count == 1, "the unlinked device's message must wait")
                let waitingFor = try await alice.store.read { db in try String.fetchAll(db, sql: "SELECT waiting_for FROM pending_ciphertexts") }
                #expect(waitingFor == ["unlinked:\(phone.userID)/\(stranger.deviceID)"])
                #expect(!(try await readableTexts(alice, dm.id)).contains("from the unlinked login"))

                // Certified under Bob's key: Alice's next listing links it and lets the message through.
                try await stranger.debugPublishCertificate(try Self.certificate(stranger, under: userKey).bytes)
                let events = alice.events()
                let second = try await alice.send(text: "second", to: dm.id)
                #expect(second.recipients.held.isEmpty)
                try await alice.sync()
                #expect(try await readableTexts(alice, dm.id).contains("from the unlinked login"))
                #expect(Set(try await alice.linkedDevices(of: phone.userID)) == [phone.deviceID, laptop.deviceID, stranger.deviceID])
                let linked = try await Self.firstIdentityEvent(events) { if case .linkedDeviceAdded(_, let device) = $0 { return device } else { return nil } }
                #expect(linked == stranger.deviceID)
            }
        }

        @Test("a keyed contact's device the key does not link is never a recipient nor held for approval")
        func unlinkedDeviceIsNeverARecipient() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let phone = try await harness.register("bob")
                let userKey = Ed25519.PrivateKey()
                try await phone.debugPublishCertificate(try Self.certificate(phone, under: userKey).bytes)
                let dm = try await alice.openDirectMessage(with: phone.userID)
                _ = try await alice.send(text: "one", to: dm.id)
                let injected = try await harness.login("bob")
                let events = alice.events()
                let report = try await alice.send(text: "two", to: dm.id)
                let newsOfInjected = try await Self.firstIdentityEvent(events) { event -> Bool? in
                    switch event {
                    case .newDevice(_, let device), .recipientAdded(_, _, let device, _), .linkedDeviceAdded(_, let device):
                        return device == injected.deviceID ? true : nil
                    default: return nil
                    }
                }
                #expect(newsOfInjected == nil, "an unlinked device of a keyed contact is no news: neither a new device nor held")
                #expect(try await alice.heldDevices().isEmpty)
                #expect(report.recipients.held.isEmpty, "a certified user's unlinked device is never offered for approval")
                #expect(report.recipients.recipientCount == 1)
                await alice.waitForOutbox()
                try await harness.accept(dm, on: [injected], between: (alice.userID, phone.userID))
                #expect(try await readableTexts(injected, dm.id).isEmpty, "the unlinked device read a message")
                await #expect(throws: MessagingError.deviceIsCertified(deviceID: injected.deviceID)) {
                    try await alice.approveDevice(injected.deviceID)
                }
            }
        }

        /// The first identity event `pick` answers, within 5 s (nil when none did).
        static func firstIdentityEvent<T: Sendable>(_ events: AsyncStream<AccountEvent>, _ pick: @escaping @Sendable (IdentityEvent) -> T?) async throws -> T? {
            try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    for await event in events {
                        if case .identity(let identity) = event, let found = pick(identity) { return found }
                    }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(5))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }
}
