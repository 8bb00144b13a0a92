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
    }
}
