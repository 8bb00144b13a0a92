import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// The faults a soak draws at random: sockets dropped now, a share of events duplicated or
    /// held back (from a seed), commits that lag their events, forced tied timestamps.
    @Suite("DevServer random faults")
    struct RandomFaultTests {
        @Test func dropOpenSocketsDropsOneUserOrEveryone() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let aliceSocket = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                await harness.server.faults.dropOpenSockets(ofUser: alice.userID)
                #expect(await aliceSocket.waitClosed())
                #expect(await aliceSocket.inbox.closeCode == nil, "dropped, not closed with a close frame")
                #expect(await !bobSocket.waitClosed(timeout: .milliseconds(300)))
                let again = try await harness.connect(alice)
                await harness.server.faults.dropOpenSockets()
                #expect(await bobSocket.waitClosed())
                #expect(await again.waitClosed())
                try await waitUntil { await harness.server.socketCount(ofUser: bob.userID) == 0 }
            }
        }

        /// Sends `count` messages with the duplicate share on from `seed`; returns how often each
        /// content arrived, in arrival order of first copies.
        private func duplicatePattern(seed: UInt64, share: Double, count: Int) async throws -> [Int] {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.seedRandomFaults(seed)
                await harness.server.faults.duplicateEvents(probability: share)
                for index in 0..<count { _ = try await harness.send(alice, channel, "m\(index)") }
                await harness.server.faults.duplicateEvents(probability: 0)
                _ = try await harness.send(alice, channel, "end")
                try await waitUntil {
                    await socket.unread().contains { $0["message"]?["content"]?.stringValue == "end" }
                }
                let contents = await socket.unread().compactMap { $0["message"]?["content"]?.stringValue }
                await socket.close()
                return (0..<count).map { index in contents.filter { $0 == "m\(index)" }.count }
            }
        }

        @Test func duplicateShareIsSeededAndPartial() async throws {
            let first = try await duplicatePattern(seed: 42, share: 0.5, count: 24)
            #expect(first.allSatisfy { $0 == 1 || $0 == 2 })
            #expect(first.contains(1) && first.contains(2), "some frames doubled, some not: \(first)")
            let again = try await duplicatePattern(seed: 42, share: 0.5, count: 24)
            #expect(again == first, "the same seed draws the same frames")
        }

        @Test func reorderShareHoldsSomeFramesBehindTheNext() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.seedRandomFaults(7)
                await harness.server.faults.reorderEvents(probability: 0.5)
                let sent = (0..<20).map { "m\($0)" }
                for text in sent { _ = try await harness.send(alice, channel, text) }
                try await waitUntil { await socket.unread().count == sent.count }
                let order = await socket.unread().compactMap { $0["message"]?["content"]?.stringValue }
                #expect(order.sorted() == sent.sorted(), "nothing lost or doubled")
                #expect(order != sent, "some frames overtaken")
                await socket.close()
            }
        }

        @Test func delayedCommitsPublishBeforeTheRowIsReadable() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.seedRandomFaults(3)
                await harness.server.faults.delayCommits(upTo: .seconds(2))
                var eventBeforeRow = 0
                for index in 0..<4 {
                    async let posted = harness.send(alice, channel, "lagging \(index)")
                    let event = await socket.next(type: "message.new")
                    let id = try #require(event?["message"]?["id"]?.stringValue)
                    let page = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                    let ids = page.json?["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                    if !ids.contains(id) { eventBeforeRow += 1 }
                    let postedID = try await posted["id"]?.stringValue
                    #expect(postedID == id)
                }
                #expect(eventBeforeRow > 0, "at least one event came before its row could be read")
                await harness.server.faults.delayCommits(upTo: nil)
                await socket.close()
            }
        }

        @Test func tiedTimestampsForcedAndReleased() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                await harness.server.faults.tieTimestamps(runLength: 3)
                var times: [String] = []
                for index in 0..<6 { times.append(try #require(try await harness.send(alice, channel, "t\(index)")["created_at"]?.stringValue)) }
                #expect(Set(times).count == 2, "two runs of three: \(times)")
                await harness.server.faults.tieTimestamps(runLength: nil)
                let next = try #require(try await harness.send(alice, channel, "free")["created_at"]?.stringValue)
                #expect(!times.contains(next))
            }
        }

        @Test func adminRouteSwitchesTheRandomFaults() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let set = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "fault_seed": .int(9), "duplicate_events": .double(0.25), "reorder_events": .double(0.5),
                    "commit_delay_ms": .int(40), "tie_run_length": .int(4),
                ]))
                #expect(set.status == 204)
                let faults = harness.server.faults
                #expect(await faults.duplicateEventProbability == 0.25)
                #expect(await faults.reorderEventProbability == 0.5)
                #expect(await faults.commitDelayLimit == .milliseconds(40))
                #expect(await faults.tieRunLength == 4)
                let socket = try await harness.connect(alice)
                _ = try await harness.call(.POST, "/_dev/faults", json: .object(["drop_sockets": .bool(true)]))
                #expect(await socket.waitClosed())
                _ = try await harness.call(.POST, "/_dev/faults", json: .object(["commit_delay_ms": .null, "tie_run_length": .null]))
                #expect(await faults.commitDelayLimit == nil)
                #expect(await faults.tieRunLength == nil)
            }
        }
    }
}
