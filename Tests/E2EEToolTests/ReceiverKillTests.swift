import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ToolTests {
    /// Issue 7's kill test: the receiving process is SIGKILLed mid-stream, twice, and restarted
    /// on the same store; decrypt-and-store is atomic, so nothing is lost and nothing doubled.
    @Suite("receiver killed")
    struct ReceiverKillTests {
        @Test("SIGKILL `listen` while 60 messages stream in, twice; the store ends with all 60 exactly once, in order, all readable")
        func killedReceiverLosesNothing() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let texts = (1...60).map { "message \($0) of 60" }
                let sender = try await harness.openInProcess(alice)
                let first = try harness.start("listen", "--store", bob.store, "--json", "--verbose", "--timeout", "120")
                #expect(await first.waitForConnection(), "\(first.output.value.summary)")
                let sending = Task { try await sender.send(texts, to: dm) }

                #expect(await first.waitForMessages(20), "\(first.output.value.summary)")
                first.send(signal: SIGKILL)
                let killed = await first.finish()
                #expect(killed.exit?.bySignal == true && killed.exit?.status == SIGKILL, "\(killed.summary)")

                let second = try harness.start("listen", "--store", bob.store, "--json", "--verbose", "--timeout", "120")
                #expect(await second.waitForMessages(10), "the restarted receiver catches up on what it had not stored: \(second.output.value.summary)")
                second.send(signal: SIGKILL)
                let killedAgain = await second.finish()
                #expect(killedAgain.exit?.bySignal == true, "\(killedAgain.summary)")

                try await sending.value
                await sender.close()
                let history = try await harness.tool("history", dm, "--store", bob.store, "--json", "--limit", "1000")
                #expect(history.status == 0, "\(history.summary)")
                let items = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], "\(history.summary)")
                #expect(items.compactMap { $0["text"] as? String } == texts, "every message exactly once, in send order")
                #expect(items.count == 60)
                #expect(items.allSatisfy { $0["state"] as? String == "decrypted" }, "nothing pending, refused or undecryptable")

                // What a run printed, it had stored: a restart never delivers it again.
                let (before, after) = (killed.messageTexts, killedAgain.messageTexts)
                #expect(Set(before).isDisjoint(with: after), "printed before the kill: \(before)\nafter: \(after)")
                #expect(before == texts.filter(before.contains) && after == texts.filter(after.contains), "each run printed in send order")
                #expect(!killed.stdout.contains("undecryptable") && !killedAgain.stdout.contains("undecryptable"))
            }
        }

        @Test("SIGKILL inside a commit window of a catch-up (issue 47): no row, mark or event lost or doubled")
        func killedInsideACommitWindow() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                // Three hand-offs of 256 and a last chunk.
                let count = 800
                let texts = (1...count).map { "catch-up \($0) of \(count)" }
                let sender = try await harness.openInProcess(alice)
                try await sender.send(texts, to: dm)
                await sender.close()

                // At most one chunk a transaction, so the catch-up spans several; killed when a
                // chunk is handed in to wait for its transaction after an earlier one committed.
                var crashing = harness.environment()
                crashing["E2EE_TEST_RECEIVE_COMMIT_ROWS"] = "256"
                crashing["E2EE_TEST_CRASH_AT"] = "receiveWindowWaiting"
                let first = try LiveToolProcess(["listen", "--store", bob.store, "--json", "--timeout", "120"], environment: crashing, in: harness.directory)
                let killed = await first.finish(limit: .seconds(60))
                #expect(killed.exit?.bySignal == true && killed.exit?.status == SIGKILL, "\(killed.summary)")

                // What the killed process stored, read from the file (`history` would sync first).
                let storedIDs = try await Self.storedMessageIDs(dm, store: bob.store)
                #expect(storedIDs.count > 0 && storedIDs.count < count && storedIDs.count % 256 == 0,  // chunks (ReceiveLane.handOffSize) commit whole
                        "killed inside a window, after whole chunks committed and before the rest: \(storedIDs.count) stored")
                // An event only follows the commit holding its row.
                let printedBefore = Set(killed.objects.filter { $0["event"] as? String == "message" }.compactMap { $0["message_id"] as? String })
                #expect(printedBefore.isSubset(of: storedIDs), "printed before the kill: \(printedBefore.count)")

                let second = try LiveToolProcess(["listen", "--store", bob.store, "--json", "--timeout", "120"], environment: harness.environment(),
                                                 in: harness.directory)
                #expect(await second.waitForMessages(count - storedIDs.count, limit: .seconds(120)), "\(second.output.value.summary)")
                second.send(signal: SIGTERM)
                let restarted = await second.finish()
                // The restart re-read what was not committed (the catch-up's mark had not moved
                // past it) and announced exactly that: nothing committed before is announced again.
                let all = try await Self.history(dm, store: bob.store, harness: harness)
                #expect(all.map(\.text) == texts, "every message exactly once, in order")
                let stored = all.filter { storedIDs.contains($0.id) }.map(\.text)
                #expect(stored == Array(texts.prefix(stored.count)), "what the killed process stored is a prefix, in order")
                #expect(restarted.messageTexts == Array(texts.dropFirst(storedIDs.count)), "\(restarted.messageTexts.count) printed after the restart")
            }
        }

        /// The decrypted messages of `channel` in `store` (ids and texts), oldest first, as
        /// `history` shows them after its sync (fails on anything not decrypted).
        private static func history(_ channel: String, store: String, harness: ToolHarness) async throws -> [(id: String, text: String)] {
            let history = try await harness.tool("history", channel, "--store", store, "--json", "--limit", "2000")
            #expect(history.status == 0, "\(history.summary)")
            let items = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], "\(history.summary)")
            #expect(items.allSatisfy { $0["state"] as? String == "decrypted" }, "nothing pending, refused or undecryptable")
            return items.compactMap { item in (item["message_id"] as? String).flatMap { id in (item["text"] as? String).map { (id, $0) } } }
        }

        /// The ids of `channel`'s timeline rows in the store file, read without syncing.
        private static func storedMessageIDs(_ channel: String, store path: String) async throws -> Set<String> {
            let store = try KeyStore.open(at: URL(fileURLWithPath: path), passphrase: SecretBytes(copying: Array(ToolHarness.passphrase.utf8)))
            defer { try? store.close() }
            return Set(try await store.timelinePage(channelID: channel, limit: 5_000).map(\.messageID))
        }
    }
}
