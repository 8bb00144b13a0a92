import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.4, §10.7 (text 1.3), attacks K13 and K15 of the linking
    /// proposal: a certificate past its `not_after` (and 600 s of grace) unlinks its device —
    /// groups rotate their sender key away from it — and a renewed one links it again, surfaced
    /// once; a device served without its certificate is unlinked, and its user keeps the key.
    @Suite("Expired and downgraded certificates")
    struct ExpiryTests {
        @Test("K13: Bob's records past not_after unlink P and L (the group rotates); renewed records bring one linkedDeviceAdded each")
        func expiryUnlinksAndRenewalRelinks() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await KeyedContact.make(harness)
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await scene.alice.createGroup(name: "team", members: [scene.bob, carol.userID])
                try await harness.accept(group, on: [scene.phone, scene.laptop, carol])
                let first = try await KeyedContact.send("before expiry", from: scene.alice, to: group.id, harness: harness)
                #expect(first.recipients == [scene.phone.deviceID, scene.laptop.deviceID, carol.deviceID])

                try await scene.moveAliceClock(to: Int64(scene.phoneNotAfter) + 700, confirm: false)
                var log = EventLog(scene.alice)
                let expired = try await KeyedContact.send("after expiry", from: scene.alice, to: group.id, harness: harness)
                // A new sender key, for Carol alone.
                #expect(expired.recipients == [carol.deviceID])
                #expect(expired.report.recipients.unresolvedUsers == [UnresolvedUser(userID: scene.bob, reason: .noVerifiedDevice)])
                let unlinked = await log.userKeyEvents()
                #expect(unlinked.filter { if case .deviceUnlinked(_, _, .expired) = $0 { true } else { false } }.count == 2)
                #expect(unlinked.contains(.deviceUnlinked(userID: scene.bob, deviceID: scene.phone.deviceID, reason: .expired)))
                #expect(unlinked.contains(.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .expired)))
                #expect(unlinked.contains(.noVerifiedDevice(userID: scene.bob)))
                #expect(try await scene.alice.userKey(of: scene.bob).state == .pinned)
                #expect(try await scene.alice.pendingRecipients().isEmpty)

                // Bob's primary renews both for 30 more days.
                let renewedUntil = scene.phoneNotAfter + UInt32(30 * KeyedContact.day)
                try await KeyedContact.certify(scene.phone, by: scene.userKey, notAfter: renewedUntil)
                try await KeyedContact.certify(scene.laptop, by: scene.userKey, notAfter: renewedUntil)
                log = EventLog(scene.alice)
                let renewed = try await KeyedContact.send("after renewal", from: scene.alice, to: group.id, harness: harness)
                #expect(renewed.recipients?.isSuperset(of: [scene.phone.deviceID, scene.laptop.deviceID]) == true, "\(String(describing: renewed.recipients))")
                let again = try await KeyedContact.send("and again", from: scene.alice, to: group.id, harness: harness)
                #expect(again.report.state != .failed)
                let relinked = await log.userKeyEvents()
                #expect(relinked.count == 2, "\(relinked)")
                #expect(relinked.contains(.linkedDeviceAdded(userID: scene.bob, deviceID: scene.phone.deviceID)))
                #expect(relinked.contains(.linkedDeviceAdded(userID: scene.bob, deviceID: scene.laptop.deviceID)))
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(try await readableTexts(scene.laptop, group.id) == ["before expiry", "after renewal", "and again"])
                #expect(try await readableTexts(carol, group.id) == ["before expiry", "after expiry", "after renewal", "and again"])
            }
        }

        @Test("K15: L's pre-linking zero-certificate record served to Alice unlinks L; Bob keeps his key, and nothing is offered")
        func downgradeUnlinksWithoutDroppingTheKey() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                await scene.serve(scene.zeroRecords[scene.laptop.deviceID], as: scene.laptop.deviceID, to: scene.alice)

                let sent = try await scene.send("under the downgrade")
                #expect(sent.recipients == [scene.phone.deviceID])
                #expect(sent.report.recipients.held.isEmpty)
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                #expect(await log.userKeyEvents() == [.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .legacy)])
                let info = try await scene.alice.userKey(of: scene.bob)
                #expect(info.state == .pinned && info.key == scene.key && info.change == nil)
                #expect(try await readableTexts(scene.laptop, scene.dm.id) == ["hello"])
            }
        }
    }
}
