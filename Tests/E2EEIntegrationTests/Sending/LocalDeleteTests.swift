import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 7: deleting a message an app has just sent, by the local id its send
    /// reported (the server id does not exist yet), and the deleted row's tick.
    @Suite("Delete by local id")
    struct LocalDeleteTests {
        @Test("a message being posted is erased by the tombstone that follows it; one still queued is never posted")
        func deleteWhileQueuedOrPosting() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let alice = try await harness.register("alice", api: { box.wrap($0) })
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "warm-up", to: dm.id)
                await alice.waitForOutbox()

                let posting = Watched(false)
                let release = Watched(false)
                box.server?.beforeNextPost {
                    posting.update { $0 = true }
                    await release.wait { $0 }
                }
                let first = try await alice.send(text: "oops", to: dm.id)
                #expect(await posting.wait { $0 }, "the first message never started going out")
                let second = try await alice.send(text: "never posted", to: dm.id)
                #expect(try await alice.delete(localID: second.localID) == nil, "a queued message is taken out of the outbox")
                let tombstone = try await alice.delete(localID: first.localID)
                #expect(tombstone?.state == .queued, "a message being posted gets a tombstone behind it")
                release.update { $0 = true }
                await alice.waitForOutbox()

                let entries = try await alice.outboxEntries(states: Set(OutboxState.allCases))
                #expect(!entries.contains { $0.localID == second.localID }, "the cancelled message is still in the outbox")
                let posted = try #require(entries.first { $0.localID == first.localID }?.serverMessageID)
                let rows = try await alice.timeline(channelID: dm.id)
                #expect(try await TimelineChecks.readableTexts(alice, dm.id) == ["warm-up"])
                let row = try #require(rows.first { $0.messageID == posted })
                #expect(row.state == .deleted)
                #expect(row.delivery == nil, "a deleted row shows a tick: \(String(describing: row.delivery))")
                let onServer = try await harness.serverMessages(dm.id, as: try await harness.reader(of: bob))
                #expect(!onServer.contains { $0.id == posted }, "the server's copy was not deleted")

                try await bob.sync()
                #expect(try await TimelineChecks.readableTexts(bob, dm.id) == ["warm-up"])
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a message the server took is deleted by its local id, and its row shows no delivery tick")
        func deleteAfterPosting() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                let sent = try await alice.send(text: "to be deleted", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await TimelineChecks.readableTexts(bob, dm.id) == ["to be deleted"])

                let report = try #require(try await alice.delete(localID: sent.localID))
                #expect(report.targetMessageID != nil)
                await alice.waitForOutbox()
                let row = try #require(try await alice.timeline(channelID: dm.id).first)
                #expect(row.state == .deleted)
                #expect(row.delivery == nil, "a deleted row shows a tick: \(String(describing: row.delivery))")
                try await bob.sync()
                #expect(try await TimelineChecks.readableTexts(bob, dm.id).isEmpty)
                await #expect(throws: MessagingError.unknownOutboxEntry(report.localID.rawValue)) {
                    try await alice.delete(localID: report.localID)  // a tombstone is not a message to delete
                }
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
