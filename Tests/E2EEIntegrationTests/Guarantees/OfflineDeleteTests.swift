import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 9 (issue 17 item 3): a device away during a `message.delete` learns of
    /// it from its catch-up reads — missing from a contiguous read, confirmed by a second read
    /// a few seconds later — and never from a single read that merely missed a row. The server
    /// only hints: the message is marked removed from the server, its text kept.
    @Suite("9. Deletes reach devices that were away")
    struct OfflineDeleteTests {
        @Test("an offline device catches up and marks a message removed from the server while it was away (text kept)")
        func offlineDeviceSeesTheDelete() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                for text in ["one", "two", "three"] { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()
                let before = try await bob.timeline(channelID: dm.id)
                #expect(before.map(\.text) == ["one", "two", "three"])
                let doomed = try #require(before.first { $0.text == "two" })
                let aliceCopy = try #require(try await alice.timeline(channelID: dm.id).first { $0.text == "two" })
                #expect(aliceCopy.messageID == doomed.messageID)

                // Bob is away (no socket): the delete event never reaches him.
                try await alice.delete(doomed.messageID)
                await alice.waitForOutbox()

                try await bob.sync()  // first read misses it: only a candidate (it may not be committed yet)
                #expect(try await bob.timeline(channelID: dm.id).first { $0.messageID == doomed.messageID }?.state == .decrypted)
                try await Task.sleep(nanoseconds: 2_200_000_000)
                let events = bob.events()
                try await bob.sync()  // still absent a few seconds later: removed from the server (a mark, the text kept)
                let after = try await bob.timeline(channelID: dm.id)
                #expect(after.first { $0.messageID == doomed.messageID }?.removedFromServer == true)
                #expect(after.filter { $0.state == .decrypted }.map(\.text) == ["one", "two", "three"])
                #expect(after.filter(\.removedFromServer).map(\.text) == ["two"])
                let watcher = Task {
                    for await event in events {
                        if case .timeline(let change) = event, change.messageID == doomed.messageID, change.kind == .removedFromServer { return true }
                    }
                    return false
                }
                try await Task.sleep(nanoseconds: 300_000_000)
                watcher.cancel()  // the stream ends: a missing event fails the test instead of stalling it
                let sawDelete = await watcher.value
                #expect(sawDelete)
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
