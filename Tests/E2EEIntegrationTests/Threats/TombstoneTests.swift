import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// Posts `payload` (raw JSON, as a hostile or buggy client would write it) through `account`'s
/// own encryption, as a posted message (`target` nil) or as an edit of `target`.
func postRawPayload(_ json: String, from account: Account, in channelID: ChannelID, editing target: String? = nil) async throws {
    _ = try await account.queueReporting(payload: SecretBytes(copying: Array(json.utf8)), channelID: channelID,
                                         kind: target == nil ? .message : .edit, target: target)
    await account.waitForOutbox()
}

/// The payload id of `messageID` as `account` stored it (its plaintext is the payload JSON).
func payloadID(of messageID: String, on account: Account) async throws -> String {
    let stored = try #require(try await account.store.message(id: messageID))
    return try #require(Account.payloadID(of: stored))
}

extension IntegrationTests {
    /// docs/spec/protocol.md §6.7, docs/spec/threats.md T20: only the sender's tombstone, from a device this
    /// device trusts, erases a message; nobody else's and no edit can.
    @Suite("Tombstones: only the sender deletes")
    struct TombstoneTests {
        @Test("a tombstone another member posts naming alice's message erases nothing")
        func otherUsersTombstoneErasesNothing() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let mallory = try await harness.register("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, mallory.userID])
                try await harness.accept(group, on: [bob, mallory])
                try await alice.send(text: "keep me", to: group.id)
                await alice.waitForOutbox()
                try await mallory.sync()
                let target = try #require(try await mallory.timeline(channelID: group.id).first { $0.text == "keep me" })
                let id = try await payloadID(of: target.messageID.rawValue, on: mallory)
                let forged = #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","delete_of":"\#(id)"}"#
                try await postRawPayload(forged, from: mallory, in: group.id)
                try await bob.sync()
                #expect(try await readableTexts(bob, group.id) == ["keep me"])
                #expect(try await bob.timeline(channelID: group.id).count == 1, "the tombstone is not a message")
            }
        }

        @Test("a tombstone read before its message is kept: a late copy of the message is stored erased")
        func earlyTombstoneErasesLateMessage() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "regret", to: dm.id)
                await alice.waitForOutbox()
                let original = try #require(try await harness.serverMessages(dm.id, as: harness.reader(of: bob)).last)
                try await alice.delete(original.id)
                await alice.waitForOutbox()
                try await bob.sync()  // only the tombstone is on the server now
                #expect(try await bob.timeline(channelID: dm.id).isEmpty)
                _ = try await bob.ingest([original], channelID: dm.id)  // a late copy, replayed by the server
                let rows = try await bob.timeline(channelID: dm.id)
                #expect(rows.map(\.state) == [.deleted])
                #expect(rows.first?.text == nil)
            }
        }

        @Test("an edit that carries delete_of is refused, and the message stays")
        func editCarryingDeleteOfIsRefused() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "stay", to: dm.id)
                try await alice.send(text: "also stay", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let rows = try await alice.timeline(channelID: dm.id)
                let first = try await payloadID(of: rows[0].messageID.rawValue, on: alice)
                let edit = #"{"v":1,"id":"\#(first)","ts":1,"text":"","edit_of":"\#(rows[1].messageID)","delete_of":"\#(first)"}"#
                try await postRawPayload(edit, from: alice, in: dm.id, editing: rows[1].messageID.rawValue)
                try await bob.sync()
                #expect(try await readableTexts(bob, dm.id) == ["stay", "also stay"])
            }
        }

        @Test("a tombstone from a device held here erases nothing: only a hint, like a server delete")
        func heldDevicesTombstoneIsAHint() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob", configuration: MessagingHarness.recipientConfiguration)
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "mine", to: dm.id)
                await alice.waitForOutbox()
                try await bob.send(text: "hi", to: dm.id)
                await bob.waitForOutbox()
                let alice2 = try await harness.login("alice", deviceName: "injected")
                _ = try await bob.send(text: "who is there?", to: dm.id)  // alice's new device is held here
                await bob.waitForOutbox()
                #expect(try await bob.pendingRecipients().map(\.device.deviceID) == [alice2.deviceID])
                try await harness.accept(dm, on: [alice2], between: (alice.userID, bob.userID))
                let mine = try #require(try await alice.timeline(channelID: dm.id).first { $0.text == "mine" })
                let id = try await payloadID(of: mine.messageID.rawValue, on: alice)
                let tombstone = #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","delete_of":"\#(id)","with":"\#(bob.userID)"}"#
                try await postRawPayload(tombstone, from: alice2, in: dm.id)
                let events = bob.events()
                try await bob.sync()
                let row = try #require(try await bob.timeline(channelID: dm.id).first { $0.messageID == mine.messageID })
                #expect(row.state == .decrypted && row.text == "mine")
                // A hint like the server's: the app hears of it (the server, which still lists the
                // message, then clears the mark again).
                let hint = await firstEvent(in: events, within: 5) {
                    $0.timelineChanges.contains(TimelineChange(channelID: dm.id, messageID: mine.messageID, kind: .removedFromServer))
                }
                #expect(hint != nil)
            }
        }

        @Test("an edit keeps its payload id: a device that first reads the edited version erases it on the tombstone")
        func editedMessageStillMatchesItsTombstone() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "draft", to: dm.id)
                await alice.waitForOutbox()
                let sent = try #require(try await alice.timeline(channelID: dm.id).first)
                try await alice.edit(sent.messageID, text: "final")
                await alice.waitForOutbox()
                try await bob.sync()  // bob reads only the edited version
                #expect(try await readableTexts(bob, dm.id) == ["final"])
                try await alice.delete(sent.messageID)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await bob.timeline(channelID: dm.id).map(\.state) == [.deleted])
            }
        }
    }
}
