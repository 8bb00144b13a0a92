import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// Issue 43 item 9: docs/e2ee-tool.md's example as a newcomer types it — default stores
    /// picked by `--username`, no step the docs do not show — reads Alice's DM on Bob's side:
    /// `channels requests` and `channels accept` catch up first, `history` shows the waiting
    /// message as a request naming the command, and both print names.
    @Suite("the documented example")
    struct NewcomerExampleTests {
        @Test("register, bootstrap, channels dm bob, send; as bob: requests (alice by name), history (waiting for acceptance), accept, history")
        func documentedExampleReadsAlicesMessage() async throws {
            try await ToolHarness.with { harness in
                let server = harness.server.baseURL
                for user in ["bob", "alice"] {
                    let register = try await harness.tool("account", "register", "--server", server, "--username", user)
                    #expect(register.status == 0, "\(register.summary)")
                    let keys = try await harness.tool("keys", "bootstrap", "--username", user)
                    #expect(keys.status == 0, "\(keys.summary)")
                }
                let opened = try await harness.tool("channels", "dm", "bob", "--username", "alice")
                #expect(opened.status == 0, "\(opened.summary)")
                let dm = try #require(opened.stdout.split(separator: " ").first.map(String.init))
                let send = try await harness.tool("send", dm, "hello bob", "--username", "alice")
                #expect(send.status == 0, "\(send.summary)")

                let requests = try await harness.tool("channels", "requests", "--username", "bob")
                #expect(requests.status == 0, "\(requests.summary)")
                #expect(requests.stdout.contains("\(dm)  dm  from alice ("), "\(requests.summary)")
                let waiting = try await harness.tool("history", dm, "--username", "bob")
                #expect(waiting.stdout.contains("[waiting for acceptance: a request; read it with channels accept \(dm)]"), "\(waiting.summary)")
                #expect(!waiting.stdout.contains("waiting for a key"), "\(waiting.summary)")
                let accept = try await harness.tool("channels", "accept", dm, "--username", "bob")
                #expect(accept.status == 0, "\(accept.summary)")
                #expect(accept.stdout.contains("accepted \(dm): alice ("), "\(accept.summary)")
                let history = try await harness.tool("history", dm, "--username", "bob")
                #expect(history.status == 0, "\(history.summary)")
                #expect(history.stdout.contains("hello bob"), "\(history.summary)")
            }
        }

        @Test("accept right after alice's DM, with no requests shown first, catches up and accepts her")
        func acceptCatchesUpFirst() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let opened = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                let dm = try #require(try opened.json()["id"] as? String)
                let send = try await harness.tool("send", dm, "hello bob", "--store", alice.store)
                #expect(send.status == 0, "\(send.summary)")
                _ = try await harness.tool("channels", "list", "--store", bob.store)  // bob knows the channel, not its message
                let accept = try await harness.tool("channels", "accept", dm, "--store", bob.store, "--json")
                #expect(accept.status == 0, "\(accept.summary)")
                #expect(try accept.json()["users"] as? [String] == [alice.userID])
                #expect(try accept.json()["names"] as? [String: String] == [alice.userID: "alice"])
            }
        }
    }
}
