import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension ToolTests {
    /// Issue 43 item 11: a running `listen` sends what another process queued on the same
    /// store (a `send` that found the server away), not only after it is restarted.
    @Suite("listen sends what another process queued")
    struct QueuedElsewhereTests {
        @Test("an entry another process left queued on alice's store goes out from her running listen within seconds")
        func listenSendsEntriesQueuedElsewhere() async throws {
            try await ToolHarness.with { harness in
                let (alice, _, dm) = try await harness.pair()
                let warmUp = try await harness.tool("send", dm, "warm-up", "--store", alice.store)
                #expect(warmUp.status == 0, "\(warmUp.summary)")
                let listen = try harness.start("listen", "--store", alice.store, "--json", "--verbose")
                #expect(await listen.waitForConnection(), "\(listen.output.value.summary)")

                try await Self.queueWhileServerAway("from another process", in: dm, on: alice, harness: harness)
                let queuedAt = ContinuousClock.now
                let sent = await listen.wait(limit: .seconds(20)) { $0.messageTexts.contains("from another process") }
                let took = ContinuousClock.now - queuedAt
                #expect(sent, "the listener never sent it: \(listen.output.value.summary)")
                #expect(took < .seconds(5), "the listener took \(took)")
                listen.send(signal: SIGTERM)
                _ = await listen.finish()
                let outbox = try await harness.tool("outbox", "--store", alice.store, "--json")
                let left = try JSONSerialization.jsonObject(with: Data(outbox.stdout.utf8)) as? [[String: Any]]
                #expect(left?.isEmpty == true, "\(outbox.summary)")
            }
        }

        /// Another process on `user`'s store queues `text` while its server cannot be reached:
        /// the entry stays `.queued` when it closes the store.
        static func queueWhileServerAway(_ text: String, in channel: String, on user: ToolUser, harness: ToolHarness) async throws {
            let store = try KeyStore.open(at: URL(fileURLWithPath: user.store), passphrase: SecretBytes(copying: Array(ToolHarness.passphrase.utf8)))
            let away = HTTPChatServer(baseURL: "http://127.0.0.1:1", session: try await AuthSession.restored(from: store), sleep: { _ in })
            let account = try await Account.open(server: away, store: store)
            let report = try await account.send(text: text, to: ChannelID(channel))
            #expect(report.state == .queued)
            await account.waitForOutboxToSettle()
            await account.shutdown()
            try store.close()
        }
    }
}
