import Foundation
import Testing

extension ToolTests {
    /// Issue 43 item 13: a send in a channel this device has not accepted is refused before
    /// anything is queued, and the message names the command that accepts it.
    @Suite("send in a channel not accepted")
    struct UnacceptedChannelSendTests {
        @Test("send in a DM request exits 10 naming `channels accept`, and leaves nothing in the outbox")
        func sendInRequestIsRefusedBeforeQueueing() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let opened = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                let dm = try #require(try opened.json()["id"] as? String)
                let hello = try await harness.tool("send", dm, "hello bob", "--store", alice.store)
                #expect(hello.status == 0, "\(hello.summary)")
                _ = try await harness.tool("history", dm, "--store", bob.store)

                let early = try await harness.tool("send", dm, "too early", "--store", bob.store)
                #expect(early.status == 10, "\(early.summary)")
                #expect(early.stderr.contains("channels accept \(dm)"), "\(early.summary)")
                let outbox = try await harness.tool("outbox", "--store", bob.store)
                #expect(outbox.status == 0, "\(outbox.summary)")
                #expect(outbox.stdout.contains("the outbox is empty"), "\(outbox.summary)")
            }
        }
    }
}
