import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.5, §10.17 (text 1.3), attack K10 of the linking proposal: Bob's
    /// stolen laptop certifies itself under a key of its own. A contact who pinned Bob's key
    /// only sees that laptop unlinked — no conflict, no prompt — while someone meeting Bob now,
    /// shown current certificates under two keys, is conflicted and sends Bob nothing (a DM
    /// fails; a group send reaches every other member and reports Bob).
    @Suite("Conflicting user keys")
    struct ConflictTests {
        @Test("K10: the stolen laptop under K_T: Alice is neither conflicted nor prompted; Dave, meeting Bob now, is conflicted and sends nothing")
        func stolenLaptopConflictsOnlyNewContacts() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let log = EventLog(scene.alice)
                let thiefKey = Ed25519.PrivateKey()
                let thiefUserKey = try KeyedContact.userKey(thiefKey)
                try await KeyedContact.certify(scene.laptop, by: thiefKey, notAfter: scene.phoneNotAfter)

                let sent = try await scene.send("after the theft")
                #expect(sent.recipients == [scene.phone.deviceID])
                let again = try await scene.send("and again")
                #expect(again.recipients == [scene.phone.deviceID])
                #expect(await log.userKeyEvents() == [
                    .deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .replaced),
                    .otherUserKeyListed(userID: scene.bob, key: thiefUserKey),
                ])
                let info = try await scene.alice.userKey(of: scene.bob)
                #expect(info.state == .pinned && info.key == scene.key && info.change == nil)

                let dave = try await harness.register("dave", configuration: KeyedContact.configuration())
                let daveLog = EventLog(dave)
                let dm = try await dave.openDirectMessage(with: scene.bob)
                let refused = try await KeyedContact.send("to Bob", from: dave, to: dm.id, harness: harness)
                #expect(refused.recipients == nil, "something was posted")
                #expect(refused.report.state == .failed)
                #expect(refused.report.failureReason?.contains("userKeyConflict") == true, "\(refused.report.failureReason ?? "no reason")")
                #expect(try await dave.userKey(of: scene.bob).state == .conflicted)
                #expect(try await dave.linkedDevices(of: scene.bob).isEmpty)
                #expect(await daveLog.userKeyEvents() == [.userKeyConflict(userID: scene.bob)])
                #expect(try await dave.pendingRecipients().isEmpty)

                // Dave gives up on keys for Bob after comparing: every device listed is held,
                // none trusted on first use.
                try await dave.forgetUserKey(of: scene.bob)
                let forgotten = try await KeyedContact.send("after forgetting", from: dave, to: dm.id, harness: harness)
                #expect(forgotten.recipients == nil, "something was posted")
                #expect(Set(forgotten.report.recipients.held.map(\.deviceID)) == [scene.phone.deviceID, scene.laptop.deviceID])
            }
        }

        @Test("a conflicted user gets nothing in a group: the send reaches every other member and reports the user as conflicted")
        func conflictedUserGetsNothingInAGroup() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                try await KeyedContact.certify(scene.laptop, by: Ed25519.PrivateKey(), notAfter: scene.phoneNotAfter)
                let dave = try await harness.register("dave", configuration: KeyedContact.configuration())
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await dave.createGroup(name: "team", members: [scene.bob, carol.userID])
                try await harness.accept(group, on: [scene.phone, scene.laptop, carol])

                let sent = try await KeyedContact.send("to the team", from: dave, to: group.id, harness: harness)
                #expect(sent.report.state != .failed, "\(sent.report.failureReason ?? "")")
                #expect(sent.recipients == [carol.deviceID])
                #expect(sent.report.recipients.unresolvedUsers == [UnresolvedUser(userID: scene.bob, reason: .conflicted)])
                #expect(try await readableTexts(carol, group.id) == ["to the team"])
                #expect(try await readableTexts(scene.phone, group.id).isEmpty)
                #expect(try await readableTexts(scene.laptop, group.id).isEmpty)
            }
        }
    }
}
