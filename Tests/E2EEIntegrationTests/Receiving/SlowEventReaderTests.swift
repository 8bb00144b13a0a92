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
                configuration.eventBufferLimit = 16
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob", configuration: configuration)
                let dm = try await harness.acceptedDM(alice, bob)
                let slow = bob.events()  // subscribed, and not read while 40 messages arrive
                let sent = (1...40).map { "message \($0)" }
                for text in sent { try await alice.send(text: text, to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()

                var seenInserted = 0
                var reloaded = false
                var iterator = slow.makeAsyncIterator()
                for _ in 0..<16 {
                    guard let event = await iterator.next() else { break }
                    if case .timeline(let change) = event, change.kind == .inserted { seenInserted += 1 }
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
