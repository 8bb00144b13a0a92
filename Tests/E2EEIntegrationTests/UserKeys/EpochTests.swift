import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.4, §10.7, §10.19 (text 1.3), attacks K6–K7 of the linking
    /// proposal: a removal raises the epoch, and a contact never lowers the highest epoch it
    /// stored, so the server cannot bring a removed device back by serving old records; a contact
    /// kept on the old listing stops at the removed device's `not_after`, and a clock set back
    /// does not revive it.
    @Suite("Removals under a user key")
    struct EpochTests {
        @Test("K6, K7: Bob moves to epoch 2 without L: Alice never sends to L; the old epoch replayed to her alone is noVerifiedDevice, nothing encrypted")
        func removedDeviceStaysRemoved() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                // P renews itself at epoch 2; L's record stays as it was, at epoch 1.
                try await KeyedContact.certify(scene.phone, by: scene.userKey, epoch: 2, notAfter: scene.phoneNotAfter)
                let removed = try await scene.send("after the removal")
                #expect(removed.recipients == [scene.phone.deviceID])
                #expect(try await scene.alice.linkedDevices(of: scene.bob) == [scene.phone.deviceID])
                #expect(await log.userKeyEvents() == [.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .removed)])
                #expect(try await scene.alice.pendingRecipients().isEmpty)

                // K7: the server shows Alice alone P's epoch-1 record again.
                await scene.serve(scene.firstRecords[scene.phone.deviceID], as: scene.phone.deviceID, to: scene.alice)
                let replayed = try await scene.send("under the replayed listing")
                #expect(replayed.recipients == nil, "something was posted")
                #expect(replayed.report.state == .failed)
                #expect(replayed.report.failureReason?.contains("noVerifiedDevice") == true, "\(replayed.report.failureReason ?? "no reason")")
                #expect(await log.userKeyEvents().contains(.noVerifiedDevice(userID: scene.bob)))
                #expect(try await scene.alice.linkedDevices(of: scene.bob).isEmpty)
                #expect(try await scene.alice.userKey(of: scene.bob).state == .pinned)
                #expect(try await readableTexts(scene.laptop, scene.dm.id) == ["hello"])
            }
        }

        @Test("K6: Dave, kept on the pre-removal listing, sends to L until its not_after + 600 s; his clock set back then surfaces clockWentBack and L stays unlinked")
        func frozenListingStopsAtExpiry() async throws {
            try await MessagingHarness.with { harness in
                // L's certificate ends in 10 days, P's in 20.
                let scene = try await KeyedContact.make(harness, phoneLifetime: 20 * KeyedContact.day, laptopLifetime: 10 * KeyedContact.day)
                try await KeyedContact.certify(scene.phone, by: scene.userKey, epoch: 2, notAfter: scene.phoneNotAfter)
                var dave = try await harness.register("dave", configuration: KeyedContact.configuration())
                await scene.serve(scene.firstRecords[scene.phone.deviceID], as: scene.phone.deviceID, to: dave)
                let dm = try await dave.openDirectMessage(with: scene.bob)
                let frozen = try await KeyedContact.send("on the old listing", from: dave, to: dm.id, harness: harness)
                #expect(frozen.recipients == [scene.phone.deviceID, scene.laptop.deviceID])

                // Ten minutes and a bit after L's not_after, by Dave's clock.
                dave = try await KeyedContact.reopen(dave, at: Int64(scene.laptopNotAfter) + 660, confirm: false, harness: harness)
                var log = EventLog(dave)
                let expired = try await KeyedContact.send("after L's expiry", from: dave, to: dm.id, harness: harness)
                #expect(expired.recipients == [scene.phone.deviceID])
                #expect(await log.userKeyEvents() == [.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .expired)])

                // Dave's clock goes 30 days back, to where L's certificate would be current again
                // (60 days back, the 45-day bound alone already refuses it).
                dave = try await KeyedContact.reopen(dave, at: Int64(scene.laptopNotAfter) + 660 - 30 * KeyedContact.day, confirm: false, harness: harness)
                log = EventLog(dave)
                let back = try await KeyedContact.send("with the clock set back", from: dave, to: dm.id, harness: harness)
                #expect(back.recipients == [scene.phone.deviceID])
                #expect(await log.all().filter { $0 == .clockWentBack }.count == 1)
                #expect(await log.userKeyEvents().isEmpty)
                #expect(try await dave.linkedDevices(of: scene.bob) == [scene.phone.deviceID])
            }
        }
    }
}
