import E2EEDevServer
import Foundation
import Testing

extension ToolTests {
    /// `history` answers for the channel it names (docs/spec/sync.md guarantee 10): another
    /// channel whose pages answer 500 or 429 does not make it fail.
    @Suite("history with a bad channel")
    struct BadChannelHistoryTests {
        @Test("team-bad answers 500, then 429: history of team-ok exits 0 with its new message; history of team-bad fails")
        func historyOfTheGoodChannel() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, ok) = try await harness.pair()
                let carol = try await harness.register("carol", bootstrap: true)
                let bad = try await harness.tool("channels", "dm", bob.userID, "--store", carol.store, "--json")
                let badID = try #require(try bad.json()["id"] as? String, "\(bad.summary)")
                #expect(try await harness.tool("send", badID, "from carol", "--store", carol.store).status == 0)
                #expect(try await harness.tool("history", ok, "--store", bob.store).status == 0)

                for (status, text) in [(500, "after a 500"), (429, "after a 429")] {
                    await harness.server.faults.faultPages(ofChannel: badID, .status(status))
                    let send = try await harness.tool("send", ok, text, "--store", alice.store)
                    #expect(send.status == 0, "\(send.summary)")
                    let history = try await harness.tool("history", ok, "--store", bob.store, "--json")
                    #expect(history.status == 0, "\(status): \(history.summary)")
                    let items = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]]
                    #expect(items?.last?["text"] as? String == text, "\(history.summary)")
                    let failing = try await harness.tool("history", badID, "--store", bob.store)
                    #expect(failing.status == 8, "the bad channel answers for itself: \(failing.summary)")
                }
            }
        }
    }
}
