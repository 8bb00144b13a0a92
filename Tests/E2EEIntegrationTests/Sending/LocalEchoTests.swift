import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 5: our own messages not posted yet are timeline rows (local echoes) with
    /// their outbox state and their text from the sealed store, replaced by the posted row on
    /// its 201 — an app keeps no copy of a pending message.
    @Suite("Local echoes of unsent messages")
    struct LocalEchoTests {
        /// Alice and Bob in an accepted DM on a server that can be stopped and started again on
        /// the same port, after one message went out (the channel's first catch-up is done).
        private static func dmWithOneMessage(_ restartable: inout RestartableDevServer)
            async throws -> (server: RunningDevServer, alice: Account, bob: Account, dm: ChatChannel) {
            let server = try await restartable.start()
            let harness = MessagingHarness(server: server)
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            try await harness.trust([alice, bob])
            let dm = try await harness.acceptedDM(alice, bob)
            try await alice.send(text: "before", to: dm.id)
            await alice.waitForOutbox()
            return (server, alice, bob, dm)
        }

        @Test("server away: the sent text is a queued local echo; once the server is back the posted row replaces it, once")
        func echoWhileAwayThenPostedOnce() async throws {
            var restartable = try RestartableDevServer()
            defer { restartable.remove() }
            let (started, alice, bob, dm) = try await Self.dmWithOneMessage(&restartable)
            var server = started
            await server.shutdown()

            let report = try await alice.send(text: "while away", to: dm.id)
            await alice.waitForOutboxToSettle()
            let away = try await alice.timeline(channelID: dm.id)
            #expect(away.map(\.text) == ["before", "while away"])
            let echo = try #require(away.last)
            #expect(echo.isLocalEcho)
            #expect(echo.delivery == .queued)
            #expect(echo.localID == report.localID)
            #expect(echo.isOwn)
            #expect(away.first?.isLocalEcho == false)
            #expect(try await TimelineReader(store: alice.store).item(messageID: echo.messageID) == echo)

            server = try await restartable.start()
            defer { Task { [server] in await server.shutdown() } }
            try await alice.resumeOutbox()
            await alice.waitForOutbox()
            let back = try await alice.timeline(channelID: dm.id)
            #expect(back.map(\.text) == ["before", "while away"], "the echo is replaced, never doubled")
            let posted = try #require(back.last)
            #expect(!posted.isLocalEcho)
            #expect(posted.localID == report.localID)
            #expect(posted.messageID != echo.messageID)
            #expect(posted.delivery == .sent || posted.delivery == .delivered)
            #expect(try await TimelineReader(store: alice.store).item(messageID: echo.messageID) == nil)
            await alice.shutdown()
            await bob.shutdown()
        }

        @Test("timelineUpdates: the echo is inserted when queued; the 201 removes it and inserts the posted row in one update")
        func observedEchoReplacedInOneUpdate() async throws {
            var restartable = try RestartableDevServer()
            defer { restartable.remove() }
            let (started, alice, bob, dm) = try await Self.dmWithOneMessage(&restartable)
            var server = started
            let updates = Watched<[[TimelineDiff]]>([])
            let observer = Task {
                var iterator = alice.timelineUpdates(channelID: dm.id).makeAsyncIterator()
                while let update = try? await iterator.next() {
                    if case .changes(let diffs) = update { updates.update { $0.append(diffs) } }
                }
            }
            await server.shutdown()

            let report = try await alice.send(text: "observed", to: dm.id)
            let echoInserted = await updates.wait { all in
                all.joined().contains { if case .inserted(let item) = $0 { item.isLocalEcho && item.localID == report.localID } else { false } }
            }
            #expect(echoInserted, "no inserted echo: \(updates.value)")
            let echoID = MessageID(report.localID.rawValue)
            if case .inserted(let item)? = updates.value.joined().first(where: { if case .inserted = $0 { true } else { false } }) {
                #expect(item.text == "observed")
                #expect(item.delivery == .queued)
                #expect(item.messageID == echoID)
            }

            server = try await restartable.start()
            defer { Task { [server] in await server.shutdown() } }
            try await alice.resumeOutbox()
            let replaced = await updates.wait { all in all.contains { Self.replaces(echoID, localID: report.localID, $0) } }
            #expect(replaced, "no update removing the echo and inserting the posted row: \(updates.value)")
            await alice.waitForOutbox()
            let postedInsertions = updates.value.joined().filter {
                if case .inserted(let item) = $0 { !item.isLocalEcho && item.localID == report.localID } else { false }
            }
            #expect(postedInsertions.count == 1, "the posted row is inserted once: \(updates.value)")
            observer.cancel()
            await alice.shutdown()
            await bob.shutdown()
        }

        /// Whether `diffs` removes the echo `echoID` and then inserts the posted row of `localID`.
        private static func replaces(_ echoID: MessageID, localID: OutboxEntryID, _ diffs: [TimelineDiff]) -> Bool {
            guard let removal = diffs.firstIndex(of: .removed(messageID: echoID)) else { return false }
            return diffs[removal...].contains { if case .inserted(let item) = $0 { !item.isLocalEcho && item.localID == localID } else { false } }
        }

        @Test("a message the server refused shows as a failed echo with its text (observed: updated to failed); cancelled, it leaves the timeline")
        func failedEchoKeepsItsText() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let alice = try await harness.register("alice") { box.wrap($0) }
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "warm-up", to: dm.id)
                await alice.waitForOutbox()
                let diffs = Watched<[TimelineDiff]>([])
                let observer = Task {
                    var iterator = alice.timelineUpdates(channelID: dm.id).makeAsyncIterator()
                    while let update = try? await iterator.next() {
                        if case .changes(let changes) = update { diffs.update { $0 += changes } }
                    }
                }
                defer { observer.cancel() }
                let faults = harness.server.faults
                box.server?.beforeNextPost { await faults.failNextRequests(20, status: 503, plainText: true) }
                let report = try await alice.send(text: "refused", to: dm.id)
                await alice.waitForOutbox()
                let failedShown = await diffs.wait { all in
                    all.contains { if case .updated(let item) = $0 { item.localID == report.localID && item.delivery == .failed } else { false } }
                }
                #expect(failedShown, "the observed echo never turned failed: \(diffs.value)")

                let timeline = try await alice.timeline(channelID: dm.id)
                #expect(timeline.map(\.text) == ["warm-up", "refused"])
                let echo = try #require(timeline.last)
                #expect(echo.isLocalEcho)
                #expect(echo.delivery == .failed)
                #expect(echo.localID == report.localID)

                try await alice.cancelOutboxEntry(report.localID)
                #expect(try await alice.timeline(channelID: dm.id).map(\.text) == ["warm-up"])
                #expect(await diffs.wait { $0.contains(.removed(messageID: MessageID(report.localID.rawValue))) }, "the cancelled echo stayed: \(diffs.value)")
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("delivery events say what each entry is for: a group send's key distribution is not a message, and never an echo")
        func deliveryEventsNameTheirPurpose() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                let events = alice.events()
                let report = try await alice.send(text: "hello team", to: group.id)
                await alice.waitForOutbox()
                var purposes: [OutboxEntryID: Set<OutboxPurpose>] = [:]
                for await event in events {
                    if case .delivery(let change) = event { purposes[change.localID, default: []].insert(change.purpose) }
                    if case .delivery(let change) = event, change.localID == report.localID, change.state == .sent { break }
                }
                #expect(purposes[report.localID] == [.message])
                #expect(purposes.values.contains([.senderKeyDistribution]), "\(purposes)")
                let timeline = try await alice.timeline(channelID: group.id)
                #expect(timeline.map(\.text) == ["hello team"])
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
