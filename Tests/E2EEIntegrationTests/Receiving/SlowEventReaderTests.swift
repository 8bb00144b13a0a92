import E2EEDevServer
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// A slow app never meets a silent gap in its events: when its buffer overflows it is told
    /// to reload (`AccountEvent.reloadNeeded`), and reloading gives exactly what the store holds.
    @Suite("Slow event reader")
    struct SlowEventReaderTests {
        @Test("a reader that falls behind gets reloadNeeded after the loss; reloading shows every message, in order")
        func slowReaderIsToldToReload() async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.eventBufferLimit = 8
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob", configuration: configuration)
                let dm = try await harness.acceptedDM(alice, bob)
                let slow = bob.events()  // subscribed, and not read while 40 messages arrive
                let sent = (1...40).map { "message \($0)" }
                // One catch-up per message: one commit, so one timeline event, each (a commit's
                // changes come as one event, so a single catch-up of all 40 would not overflow).
                for text in sent {
                    try await alice.send(text: text, to: dm.id)
                    await alice.waitForOutbox()
                    try await bob.sync()
                }

                var seenInserted = 0
                var reloaded = false
                var iterator = slow.makeAsyncIterator()
                for _ in 0..<configuration.eventBufferLimit {  // the buffer is full: that many are there
                    guard let event = await iterator.next() else { break }
                    seenInserted += event.timelineChanges.filter { $0.kind == .inserted }.count
                    if event == .reloadNeeded { reloaded = true }
                }
                #expect(reloaded, "the loss is announced")
                #expect(seenInserted < sent.count, "the buffer did overflow")
                // The app reloads: the store has every message, in order, nothing missing.
                #expect(try await readableTexts(bob, dm.id) == sent)
                let onServer = try await TimelineChecks.serverTimeline(dm.id, reader: harness.reader(of: bob), shownBy: bob)
                #expect(try await bob.timeline(channelID: dm.id, limit: 1_000).map(\.messageID) == onServer.map(\.id))
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}

extension IntegrationTests {
    /// `Account.timelineUpdates(channelID:)`: a snapshot, then one batch of row diffs per commit,
    /// and a fresh snapshot instead of anything a slow observer lost.
    @Suite("Timeline updates")
    struct TimelineUpdatesTests {
        @Test("a snapshot, then inserted rows of a commit as one batch, then the delete as an update")
        func snapshotThenBatches() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "before", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                var updates = bob.timelineUpdates(channelID: dm.id).makeAsyncIterator()
                #expect(try await updates.next() == .reset(try await bob.timeline(channelID: dm.id)))

                for text in ["one", "two", "three"] { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()
                guard case .changes(let batch)? = try await updates.next() else { Issue.record("no batch"); return }
                let inserted = batch.compactMap { if case .inserted(let item) = $0 { item.text } else { nil } }
                #expect(inserted == ["one", "two", "three"], "one commit, one batch: \(batch)")

                let doomed = try #require(try await alice.timeline(channelID: dm.id).first { $0.text == "two" })
                try await alice.delete(doomed.messageID)
                await alice.waitForOutbox()
                try await bob.sync()
                guard case .changes(let deletion)? = try await updates.next() else { Issue.record("no delete"); return }
                #expect(deletion.contains { if case .updated(let item) = $0 { item.messageID == doomed.messageID && item.state == .deleted } else { false } })
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("an observer that falls behind gets a fresh snapshot equal to the store, never a gap")
        func slowObserverGetsReset() async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.eventBufferLimit = 8
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob", configuration: configuration)
                let dm = try await harness.acceptedDM(alice, bob)
                var updates = bob.timelineUpdates(channelID: dm.id, limit: 100).makeAsyncIterator()
                #expect(try await updates.next() == .reset([]))
                for round in 1...20 {  // twenty commits while the observer reads nothing
                    try await alice.send(text: "m\(round)", to: dm.id)
                    await alice.waitForOutbox()
                    try await bob.sync()
                }
                var rows: [TimelineItem] = []
                var resets = 0
                while resets == 0, let update = try await updates.next() {
                    if case .reset(let items) = update {
                        rows = items
                        resets += 1
                    }
                }
                #expect(rows == (try await bob.timeline(channelID: dm.id, limit: 100)))
                #expect(rows.compactMap(\.text) == (1...20).map { "m\($0)" })
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
