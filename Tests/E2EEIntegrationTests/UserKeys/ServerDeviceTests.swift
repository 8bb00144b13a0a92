import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.4, §10.7 (text 1.3), attacks K3–K5 of the linking proposal: once
    /// Alice pinned Bob's user key, only devices that key certifies get keys. A device the server
    /// adds, swaps in, or dresses in a certificate made for another device is never a recipient
    /// nor offered for approval; a device Bob links is a recipient at once, with no prompt.
    @Suite("Devices the server adds to a user with a key")
    struct ServerDeviceTests {
        @Test("a device Bob links under his pinned key is a recipient at once: surfaced once, never held, never a prompt")
        func linkedDeviceNeedsNoApproval() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                try await KeyedContact.certify(tablet, by: scene.userKey, notAfter: scene.phoneNotAfter)
                _ = try await tablet.openDirectMessage(with: scene.alice.userID)

                let sent = try await scene.send("to all three")
                #expect(sent.recipients == [scene.phone.deviceID, scene.laptop.deviceID, tablet.deviceID])
                #expect(sent.report.recipients.held.isEmpty)
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                let again = try await scene.send("still three")
                #expect(again.recipients == [scene.phone.deviceID, scene.laptop.deviceID, tablet.deviceID])
                #expect(await log.userKeyEvents() == [.linkedDeviceAdded(userID: scene.bob, deviceID: tablet.deviceID)])
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(try await readableTexts(tablet, scene.dm.id) == ["to all three", "still three"])
                // Nothing to approve: the device is decided by its certificate.
                await #expect(throws: MessagingError.deviceIsCertified(deviceID: tablet.deviceID)) {
                    try await scene.alice.approveDevice(tablet.deviceID)
                }
            }
        }

        @Test("K3: a device the server adds, with a zero certificate and then one under its own key, is never a recipient nor offered; its key is surfaced once")
        func serverAddedDeviceIsNeverARecipient() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                let bobsDevices: Set<DeviceID> = [scene.phone.deviceID, scene.laptop.deviceID]
                let added = try await harness.injectDevice(into: scene.bob.rawValue)

                let zero = try await scene.send("beside a zero certificate")
                #expect(zero.recipients == bobsDevices)
                #expect(zero.report.recipients.held.isEmpty)
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                await #expect(throws: MessagingError.deviceIsCertified(deviceID: added.deviceID)) {
                    try await scene.alice.approveDevice(added.deviceID)
                }

                let serverKey = Ed25519.PrivateKey()
                let serverUserKey = try KeyedContact.userKey(serverKey)
                try await KeyedContact.certify(added, by: serverKey, notAfter: scene.phoneNotAfter)
                let certified = try await scene.send("beside a certificate under another key")
                #expect(certified.recipients == bobsDevices)
                let again = try await scene.send("and again")
                #expect(again.recipients == bobsDevices)
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                #expect(await log.userKeyEvents() == [.otherUserKeyListed(userID: scene.bob, key: serverUserKey)])
                let info = try await scene.alice.userKey(of: scene.bob)
                #expect(info.state == .pinned && info.key == scene.key && info.change == nil)
                #expect(info.otherKeys == [serverUserKey])
                #expect(Set(try await scene.alice.linkedDevices(of: scene.bob)) == bobsDevices)
                #expect(try await readableTexts(added, scene.dm.id).isEmpty)
            }
        }

        @Test("K4: the server swaps L for a device of its own (replace_device_id): L is surfaced unlinked once, the new device is never linked")
        func swappedDeviceIsNeverLinked() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                let swapped = try await harness.injectDevice(into: scene.bob.rawValue, replacing: scene.laptop.deviceID.rawValue)

                let sent = try await scene.send("after the swap")
                #expect(sent.recipients == [scene.phone.deviceID])
                #expect(sent.report.recipients.held.isEmpty)
                // The new device copies L's certificate: it names L, not this device.
                try await swapped.debugPublishCertificate(try #require(scene.firstRecordCertificate(of: scene.laptop)).bytes)
                let again = try await scene.send("and again")
                #expect(again.recipients == [scene.phone.deviceID])
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                #expect(try await scene.alice.linkedDevices(of: scene.bob) == [scene.phone.deviceID])
                #expect(await log.userKeyEvents() == [.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .removed)])
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(try await readableTexts(swapped, scene.dm.id).isEmpty)
            }
        }

        @Test("K5: L's certificate in the record of a device the server adds is not current there; served with L's whole record, it is skipped and surfaced")
        func transplantedCertificateIsNotCurrent() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                let bobsDevices: Set<DeviceID> = [scene.phone.deviceID, scene.laptop.deviceID]
                let added = try await harness.injectDevice(into: scene.bob.rawValue)
                // The added device publishes L's certificate under its own SIG.
                try await added.debugPublishCertificate(try #require(scene.firstRecordCertificate(of: scene.laptop)).bytes)

                let sent = try await scene.send("beside the copied certificate")
                #expect(sent.recipients == bobsDevices)
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                await #expect(throws: MessagingError.deviceIsCertified(deviceID: added.deviceID)) {
                    try await scene.alice.approveDevice(added.deviceID)
                }
                #expect(await log.userKeyEvents().isEmpty)

                // The server serves L's whole record and signature as the added device's: its SIG
                // does not sign it, so the record is refused — skipped and surfaced, failing nothing.
                await scene.serve(scene.firstRecords[scene.laptop.deviceID], as: added.deviceID)
                let whole = try await scene.send("beside L's whole record")
                #expect(whole.recipients == bobsDevices)
                #expect(await log.userKeyEvents().contains(.invalidCertificate(userID: scene.bob, deviceID: added.deviceID)))
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(Set(try await scene.alice.linkedDevices(of: scene.bob)) == bobsDevices)
                #expect(try await readableTexts(added, scene.dm.id).isEmpty)
            }
        }
    }
}

extension KeyedContact {
    /// The certificate `account` published under K1 at the start.
    func firstRecordCertificate(of account: Account) throws -> DeviceCertificate? {
        guard let bundle = firstRecords[account.deviceID] else { return nil }
        return try SignedPrekeyRecord(base64: bundle.signedPreKey).certificate
    }
}
