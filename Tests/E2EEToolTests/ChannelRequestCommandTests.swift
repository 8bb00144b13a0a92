import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// `channels requests|accept|decline|add|held|member` (docs/spec/protocol.md §5.9–§5.11), as
    /// processes over real stores against the dev server.
    @Suite("channel requests")
    struct ChannelRequestCommandTests {
        @Test("a DM Bob did not open is a request: send exits 7 and history shows nothing; accept names Alice, then it works both ways")
        func directMessageRequestAcceptedWorksBothWays() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let opened = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                let dm = try #require(try opened.json()["id"] as? String)
                let hello = try await harness.tool("send", dm, "hello bob", "--store", alice.store)
                #expect(hello.status == 0, "\(hello.summary)")

                let early = try await harness.tool("send", dm, "too early", "--store", bob.store)
                #expect(early.status != 0, "\(early.summary)")
                let waiting = try await harness.tool("history", dm, "--store", bob.store, "--json")
                let items = try #require(try JSONSerialization.jsonObject(with: Data(waiting.stdout.utf8)) as? [[String: Any]])
                #expect(items.compactMap { $0["text"] as? String }.isEmpty, "\(waiting.summary)")

                let requests = try await harness.tool("channels", "requests", "--store", bob.store, "--json")
                #expect(requests.status == 0, "\(requests.summary)")
                let listed = try #require(try requests.json()["requests"] as? [[String: Any]])
                #expect(listed.compactMap { $0["id"] as? String } == [dm])
                #expect(listed.first?["candidate"] as? String == alice.userID)
                let accept = try await harness.tool("channels", "accept", dm, "--store", bob.store, "--json")
                #expect(accept.status == 0, "\(accept.summary)")
                #expect(try accept.json()["users"] as? [String] == [alice.userID])

                let read = try await harness.tool("history", dm, "--store", bob.store, "--json")
                let texts = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: Any]])
                #expect(texts.compactMap { $0["text"] as? String } == ["hello bob"])
                let reply = try await harness.tool("send", dm, "hi alice", "--store", bob.store)
                #expect(reply.status == 0, "\(reply.summary)")
                let back = try await harness.tool("history", dm, "--store", alice.store, "--json")
                let aliceSees = try #require(try JSONSerialization.jsonObject(with: Data(back.stdout.utf8)) as? [[String: Any]])
                #expect(aliceSees.compactMap { $0["text"] as? String } == ["hello bob", "hi alice"])
            }
        }

        @Test("a group: add approves a member, a stranger's join is held (channels held), member approve lets it in; decline a request")
        func groupMembersHeldAndApproved() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let mallory = try await harness.register("mallory", bootstrap: true)
                let created = try await harness.tool("channels", "create", "team", "--store", alice.store, "--json")
                let group = try #require(try created.json()["id"] as? String)
                let add = try await harness.tool("channels", "add", group, bob.userID, "--store", alice.store)
                #expect(add.status == 0, "\(add.summary)")
                let first = try await harness.tool("send", group, "for bob", "--store", alice.store)
                #expect(first.status == 0, "\(first.summary)")
                let accepted = try await harness.tool("channels", "accept", group, "--store", bob.store)
                #expect(accepted.status == 0, "\(accepted.summary)")

                let reader = try await harness.client(loggingInAs: "mallory")
                try await reader.joinChannel(id: ChannelID(group))
                try await Task.sleep(nanoseconds: 5_100_000_000)  // the member list read by the first send expires (5 s)
                let second = try await harness.tool("send", group, "still for bob", "--store", alice.store)
                #expect(second.status == 0, "\(second.summary)")
                // Issue 43 item 14: the send names the held member as it names held devices.
                #expect(second.stdout.contains("held: member \(mallory.userID) of this group gets no keys until approved"), "\(second.summary)")
                let held = try await harness.tool("channels", "held", "--store", alice.store, "--json")
                let members = try #require(try held.json()["members"] as? [[String: Any]])
                #expect(members.compactMap { $0["user_id"] as? String } == [mallory.userID])
                let approve = try await harness.tool("channels", "member", "approve", group, mallory.userID, "--store", alice.store)
                #expect(approve.status == 0, "\(approve.summary)")
                let none = try await harness.tool("channels", "held", "--store", alice.store)
                #expect(none.stdout.contains("no held members"), "\(none.summary)")

                // Bob's history reads Alice's signed announcement of the approval: a prompt only.
                let history = try await harness.tool("history", group, "--store", bob.store)
                #expect(history.status == 0, "\(history.summary)")
                #expect(history.stderr.contains("* user \(alice.userID) approved \(mallory.userID)"), "\(history.summary)")

                let decline = try await harness.tool("channels", "decline", group, "--store", bob.store)
                #expect(decline.status == 0, "\(decline.summary)")
                let refused = try await harness.tool("send", group, "declined", "--store", bob.store)
                #expect(refused.status != 0, "\(refused.summary)")
            }
        }
    }
}
