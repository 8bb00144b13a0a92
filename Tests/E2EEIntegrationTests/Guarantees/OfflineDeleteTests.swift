import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 9, docs/spec/protocol.md §6.7: only the sender deletes. A
    /// device that was away reads the sender's tombstone when it catches up and erases the
    /// message on that first catch-up, every time; a `DELETE` without a tombstone (the server,
    /// or another client) only marks the message removed from the server, its text kept.
    @Suite("9. Deletes reach devices that were away")
    struct OfflineDeleteTests {
        @Test("deletes made while a device was away are erased there by their tombstones on its first catch-up, every time")
        func tombstoneReachesDeviceThatWasAway() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                for channel in [dm.id, group.id] {
                    for text in ["one", "two", "three", "four"] { try await alice.send(text: text, to: channel) }
                }
                await alice.waitForOutbox()
                try await bob.sync()
                for channel in [dm.id, group.id] {
                    var doomedIDs: [String] = []
                    // Bob is away (no socket): each delete reaches him only through his next catch-up.
                    for round in ["two", "four"] {
                        let doomed = try #require(try await alice.timeline(channelID: channel).first { $0.text == round })
                        doomedIDs.append(doomed.messageID.rawValue)
                        try await alice.delete(doomed.messageID)
                        await alice.waitForOutbox()
                        #expect(try await alice.timeline(channelID: channel).first { $0.messageID == doomed.messageID }?.state == .deleted)
                        let events = bob.events()
                        try await bob.sync()
                        let after = try await bob.timeline(channelID: channel)
                        #expect(after.first { $0.messageID == doomed.messageID }?.state == .deleted, "erased on the first catch-up")
                        #expect(after.first { $0.messageID == doomed.messageID }?.text == nil)
                        let erased = await firstEvent(in: events, within: 5) {
                            $0.timelineChanges.contains(TimelineChange(channelID: channel, messageID: doomed.messageID, kind: .deleted))
                        }
                        #expect(erased != nil)
                    }
                    // The tombstones are not messages; the server's copies are gone too (best effort DELETE).
                    #expect(try await readableTexts(bob, channel) == ["one", "three"])
                    #expect(try await bob.timeline(channelID: channel).count == 4)
                    let onServer = try await harness.serverMessages(channel, as: harness.reader(of: bob))
                    #expect(!onServer.contains { doomedIDs.contains($0.id.rawValue) })
                }
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a DELETE without a tombstone (the server, another client) only marks the message removed from the server: text kept")
        func serverDeleteIsOnlyAHint() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                for text in ["one", "two", "three"] { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()
                let doomed = try #require(try await bob.timeline(channelID: dm.id).first { $0.text == "two" })

                // Alice's other client deletes the row on the server without a tombstone.
                try await harness.reader(of: alice).deleteMessage(id: doomed.messageID)

                try await bob.sync()  // first read misses it: only a candidate (it may not be committed yet)
                #expect(try await bob.timeline(channelID: dm.id).first { $0.messageID == doomed.messageID }?.removedFromServer == false)
                try await Task.sleep(nanoseconds: 2_200_000_000)
                let events = bob.events()
                try await bob.sync()  // still absent a few seconds later: removed from the server (a mark, the text kept)
                let after = try await bob.timeline(channelID: dm.id)
                #expect(after.first { $0.messageID == doomed.messageID }?.removedFromServer == true)
                #expect(after.filter { $0.state == .decrypted }.map(\.text) == ["one", "two", "three"])
                let marked = await firstEvent(in: events, within: 5) {
                    $0.timelineChanges.contains(TimelineChange(channelID: dm.id, messageID: doomed.messageID, kind: .removedFromServer))
                }
                #expect(marked != nil)
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
