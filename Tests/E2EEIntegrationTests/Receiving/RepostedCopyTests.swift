import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// THREATS T19 and docs/spec/sync.md guarantee 10 mounted through the development server: a member
    /// re-posts another member's envelope claiming her device, and one channel's history
    /// cannot be read at all.
    @Suite("RepostedCopy")
    struct RepostedCopyTests {
        @Test("T19: Bob re-posts Alice's envelope under her device id; Alice's catch-up is unharmed and the copy is never hers")
        func repostedEnvelopeIsNotOurs() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                let later = try await bob.createGroup(name: "later", members: [alice.userID])
                try await harness.accept(later, on: [alice])
                try await alice.send(text: "from alice", to: group.id)
                await alice.waitForOutbox()
                try await alice.sync()

                // Bob copies Alice's envelope byte for byte and posts it claiming her device.
                let bobClient = try await harness.reader(of: bob)
                let original = try #require(try await harness.serverMessages(group.id, as: bobClient).last { $0.contentType == "e2ee.group" })
                let copy = try await bobClient.sendMessage(channelID: group.id, OutgoingMessage(
                    content: original.content, contentType: "e2ee.group", protocolVersion: 2, senderDeviceID: alice.deviceID))
                try await bob.send(text: "in the later channel", to: later.id)
                await bob.waitForOutbox()

                let events = alice.events()
                // Before the fix this threw `forbidden: Not your message` (Alice tried to delete
                // Bob's copy as a duplicate of hers) and stopped every later channel.
                try await alice.sync()
                #expect(await alice.channelSyncFailures().isEmpty)
                #expect(await firstEvent(in: events, within: 0.5) { if case .channelSyncFailed = $0 { true } else { false } } == nil)

                // The copy is still on the server (nobody deleted it) and is not Alice's.
                let onServer = try await harness.serverMessages(group.id, as: try await harness.reader(of: alice))
                #expect(onServer.contains { $0.id == copy.id })
                let timeline = try await alice.timeline(channelID: group.id)
                let mine = timeline.filter { $0.text == "from alice" }
                #expect(mine.count == 1)
                #expect(mine.first?.messageID == original.id)
                #expect(mine.first?.isOwn == true)
                if let shown = timeline.first(where: { $0.messageID == copy.id }) {
                    #expect(!shown.isOwn)
                    #expect(shown.text == nil)
                    #expect(shown.state == .undecryptable(.senderMismatch))
                }
                // The other channel caught up in the same run.
                #expect(try await alice.timeline(channelID: later.id).contains { $0.text == "in the later channel" })
                // Alice still sends in the group, and Bob reads it.
                try await alice.send(text: "still sending", to: group.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await bob.timeline(channelID: group.id).contains { $0.text == "still sending" })
                #expect(try await bob.timeline(channelID: group.id).first { $0.messageID == copy.id }?.text == nil)
            }
        }

        @Test("catch-ups overlap: while one channel's history read hangs, another channel's messages reach the timeline",
              .timeLimit(.minutes(1)))
        func slowChannelDoesNotHoldUpTheOthers() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let alice = try await harness.register("alice", api: box.wrap)
                let bob = try await harness.register("bob")
                let slow = try await bob.createGroup(name: "slow", members: [alice.userID])
                try await harness.accept(slow, on: [alice])
                let quick = try await bob.createGroup(name: "quick", members: [alice.userID])
                try await harness.accept(quick, on: [alice])
                try await bob.send(text: "slow text", to: slow.id)
                try await bob.send(text: "quick text", to: quick.id)
                await bob.waitForOutbox()
                let server = try #require(box.server)
                server.holdHistory(of: slow.id.rawValue)
                let sync = Task { try await alice.sync() }
                var shown = false
                for _ in 0..<250 {
                    if try await alice.timeline(channelID: quick.id).contains(where: { $0.text == "quick text" }) {
                        shown = true
                        break
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(shown, "the quick channel waited for the held one")
                #expect(try await alice.timeline(channelID: slow.id).isEmpty)
                server.releaseHistory(of: slow.id.rawValue)
                try await sync.value
                #expect(try await alice.timeline(channelID: slow.id).contains { $0.text == "slow text" })
            }
        }

        @Test("Guarantee 10: a channel whose history cannot be read is recorded and surfaced; other channels, pending and keys go on")
        func oneBrokenChannelDoesNotStopTheOthers() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let alice = try await harness.register("alice", api: box.wrap)
                let bob = try await harness.register("bob")
                let broken = try await bob.createGroup(name: "broken", members: [alice.userID])
                try await harness.accept(broken, on: [alice])
                let fine = try await bob.createGroup(name: "fine", members: [alice.userID])
                try await harness.accept(fine, on: [alice])
                let other = try await bob.openDirectMessage(with: alice.userID)
                try await harness.accept(other, on: [alice], between: (alice.userID, bob.userID))
                try await bob.send(text: "unreadable for now", to: broken.id)
                try await bob.send(text: "group text", to: fine.id)
                try await bob.send(text: "dm text", to: other.id)
                await bob.waitForOutbox()
                let server = try #require(box.server)
                server.breakHistory(of: broken.id.rawValue)
                // Key maintenance must run too: consume Alice's local one-time prekeys below 10.
                // (Consumed just now: still inside the grace window, so Bob's prekey messages read.)
                let now = StoreTime.now().microseconds
                let consumed = try await alice.store.write { db in
                    try db.execute(sql: "UPDATE one_time_prekeys SET state = 'consumed', consumed_at = ? WHERE state = 'published'", arguments: [now])
                    return db.changesCount
                }
                #expect(consumed > 0)
                #expect(try await alice.oneTimePrekeysAreLow())

                let events = alice.events()
                try await alice.sync()
                let failures = await alice.channelSyncFailures()
                #expect(failures.map(\.channelID) == [broken.id])
                #expect(failures.first?.reason.contains("undecodable page") == true)
                let event = await firstEvent(in: events) { if case .channelSyncFailed = $0 { true } else { false } }
                #expect(event == .channelSyncFailed(try #require(failures.first)))
                #expect(try await alice.timeline(channelID: fine.id).contains { $0.text == "group text" })
                #expect(try await alice.timeline(channelID: other.id).contains { $0.text == "dm text" })
                #expect(try await !alice.oneTimePrekeysAreLow())

                // The channel reads again: its failure is cleared.
                server.repairHistory(of: broken.id.rawValue)
                try await alice.sync()
                #expect(await alice.channelSyncFailures().isEmpty)
                #expect(try await alice.timeline(channelID: broken.id).contains { $0.text == "unreadable for now" })
            }
        }
    }
}
