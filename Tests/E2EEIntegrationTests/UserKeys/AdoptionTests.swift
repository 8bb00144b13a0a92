import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.6 (text 1.3), attack K14 of the linking proposal: a user met
    /// without a key stays under text 1.2 — a new device is held until approved — and adopts a
    /// key only once every device this device trusts for them carries it. A device the server
    /// adds with a key of its own, or a held device, cannot make that happen.
    @Suite("Adopting a user key")
    struct AdoptionTests {
        @Test("K14: Carol without a key: her new device is held as in 1.2; a server device under K_S is held, not adopted; once every trusted device carries K_C, it is adopted")
        func keyAdoptedOnlyThroughTrustedDevices() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice", configuration: KeyedContact.configuration())
                let carol = try await harness.registerWithDefaults("carol")
                let dm = try await harness.acceptedDM(alice, carol)
                let met = try await KeyedContact.send("hello", from: alice, to: dm.id, harness: harness)
                #expect(met.recipients == [carol.deviceID])
                #expect(try await alice.userKey(of: carol.userID).state == .none)
                let log = EventLog(alice)

                // Text 1.2: a new device is held.
                let laptop = try await harness.login("carol", configuration: MessagingHarness.recipientConfiguration)
                let newDevice = try await KeyedContact.send("with a new device", from: alice, to: dm.id, harness: harness)
                #expect(newDevice.recipients == [carol.deviceID])
                #expect(newDevice.report.recipients.held == [RecipientDevice(userID: carol.userID, deviceID: laptop.deviceID)])

                // A device the server adds, certified under a key of its own: held, nothing adopted.
                let added = try await harness.injectDevice(into: carol.userID.rawValue)
                let notAfter = UInt32(KeyedContact.wallClock() + 20 * KeyedContact.day)
                try await KeyedContact.certify(added, by: Ed25519.PrivateKey(), notAfter: notAfter)
                let serverKey = try await KeyedContact.send("beside the server's key", from: alice, to: dm.id, harness: harness)
                #expect(serverKey.recipients == [carol.deviceID])
                #expect(Set(serverKey.report.recipients.held.map(\.deviceID)) == [laptop.deviceID, added.deviceID])
                #expect(try await alice.userKey(of: carol.userID).state == .none)

                // Carol creates K_C; her held laptop carries it first: still nothing adopted.
                let carolKey = Ed25519.PrivateKey()
                let carolUserKey = try KeyedContact.userKey(carolKey)
                try await KeyedContact.certify(laptop, by: carolKey, notAfter: notAfter)
                let heldOnly = try await KeyedContact.send("the held laptop carries K_C", from: alice, to: dm.id, harness: harness)
                #expect(heldOnly.recipients == [carol.deviceID])
                #expect(try await alice.userKey(of: carol.userID).state == .none)
                #expect(await log.userKeyEvents().isEmpty)

                // Her phone, the device Alice trusts, carries it: K_C is adopted, and the laptop
                // it links is held no more; the server's device stays out.
                try await KeyedContact.certify(carol, by: carolKey, notAfter: notAfter)
                let adopted = try await KeyedContact.send("both carry K_C", from: alice, to: dm.id, harness: harness)
                #expect(adopted.recipients == [carol.deviceID, laptop.deviceID])
                let info = try await alice.userKey(of: carol.userID)
                #expect(info.state == .pinned && info.key == carolUserKey)
                #expect(await log.userKeyEvents() == [.userKeyAdopted(userID: carol.userID, key: carolUserKey)])
                #expect(try await alice.pendingRecipients().isEmpty)
                #expect(Set(try await alice.linkedDevices(of: carol.userID)) == [carol.deviceID, laptop.deviceID])
                _ = try await laptop.openDirectMessage(with: alice.userID)
                #expect(try await readableTexts(laptop, dm.id) == ["both carry K_C"])
                #expect(try await readableTexts(added, dm.id).isEmpty)
            }
        }
    }
}
