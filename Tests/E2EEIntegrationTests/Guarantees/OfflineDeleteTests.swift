import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 9 (issue 17 item 3): a device away during a `message.delete` learns of
    /// it from its catch-up reads — missing from a contiguous read, confirmed by a second read
    /// a few seconds later — and never from a single read that merely missed a row.
    @Suite("9. Deletes reach devices that were away")
    struct OfflineDeleteTests {
        @Test("an offline device catches up and shows a message deleted while it was away")
        func offlineDeviceSeesTheDelete() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await harness.accept(dm, on: [bob], between: (alice.userID, bob.userID))
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
                try await bob.sync()  // still absent a few seconds later: deleted
                let after = try await bob.timeline(channelID: dm.id)
                #expect(after.first { $0.messageID == doomed.messageID }?.state == .deleted)
                #expect(after.filter { $0.state == .decrypted }.map(\.text) == ["one", "three"])
                let watcher = Task {
                    for await event in events {
                        if case .timeline(let change) = event, change.messageID == doomed.messageID, change.kind == .deleted { return true }
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
