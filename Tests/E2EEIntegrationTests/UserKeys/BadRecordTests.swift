import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.3 as narrowed by piece 2 (text 1.3), attack K17 of the linking
    /// proposal: for a user with a pinned key, a record that does not verify is an unlinked
    /// device, skipped and surfaced (`invalidCertificate`); it fails no send, where text 1.2
    /// refuses the whole listing.
    @Suite("One bad record under a user key")
    struct BadRecordTests {
        @Test("K17: a malformed record for L in a group is skipped and surfaced; the send reaches every other member")
        func malformedRecordIsSkipped() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await scene.alice.createGroup(name: "team", members: [scene.bob, carol.userID])
                try await harness.accept(group, on: [scene.phone, scene.laptop, carol])
                let first = try await KeyedContact.send("one", from: scene.alice, to: group.id, harness: harness)
                #expect(first.recipients == [scene.phone.deviceID, scene.laptop.deviceID, carol.deviceID])
                let log = EventLog(scene.alice)

                // L's record one byte short, under its own signature.
                let laptopRecord = try #require(scene.firstRecords[scene.laptop.deviceID])
                let short = try Array(Base64.decode(laptopRecord.signedPreKey, maxEncodedLength: 255).dropLast())
                await harness.server.faults.serveRecord(device: scene.laptop.deviceID.rawValue,
                                                        record: .given(signedPreKey: Base64.encode(short), signature: laptopRecord.signedPreKeySignature))
                let sent = try await KeyedContact.send("two", from: scene.alice, to: group.id, harness: harness)
                #expect(sent.report.state != .failed, "\(sent.report.failureReason ?? "")")
                // The sender key is renewed for the devices left.
                #expect(sent.recipients == [scene.phone.deviceID, carol.deviceID])
                #expect(sent.report.recipients.unresolvedUsers.isEmpty)
                let events = await log.userKeyEvents()
                #expect(events.contains(.invalidCertificate(userID: scene.bob, deviceID: scene.laptop.deviceID)))
                #expect(events.contains(.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .invalid)))
                #expect(try await scene.alice.pendingRecipients().isEmpty)
                #expect(try await readableTexts(carol, group.id) == ["one", "two"])
                #expect(try await readableTexts(scene.phone, group.id) == ["one", "two"])
                #expect(try await readableTexts(scene.laptop, group.id) == ["one"])
            }
        }
    }
}
