import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// Issue 43 item 14: what the tool says about polling and the outbox is what the spec and
    /// docs/e2ee-tool.md say.
    @Suite("polling status and outbox attempts")
    struct ToolStatusTests {
        @Test("listen --verbose names the spec's polling schedule: 2, 4, 8, 16, then every 30 s")
        func pollingStatusNamesTheSchedule() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                await harness.server.faults.refuseUpgrades(status: 503)
                let listen = try harness.start("listen", "--store", alice.store, "--verbose")
                #expect(await listen.wait(limit: .seconds(30)) { $0.stderr.contains("connection: polling") }, "\(listen.output.value.summary)")
                let stderr = listen.output.value.stderr
                #expect(stderr.contains("REST after 2, 4, 8 and 16 s, then every 30 s"), "\(stderr)")
                #expect(!stderr.contains("REST every 30 s"), "\(stderr)")
                listen.send(signal: SIGTERM)
                _ = await listen.finish()
            }
        }

        @Test("outbox shows the attempt count of every entry, 0 for one never posted")
        func outboxShowsAttempts() async throws {
            try await ToolHarness.with { harness in
                let (alice, _, dm) = try await harness.pair()
                await harness.server.faults.dropNextRequests(400)
                let send = try await harness.tool("send", dm, "later", "--store", alice.store)
                #expect(send.status == 13, "\(send.summary)")
                let outbox = try await harness.tool("outbox", "--store", alice.store)
                #expect(outbox.status == 0, "\(outbox.summary)")
                #expect(outbox.stdout.contains("queued  message in \(dm), 0 attempts"), "\(outbox.summary)")
            }
        }
    }
}
