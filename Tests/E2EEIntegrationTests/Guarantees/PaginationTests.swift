import E2EEDevServer
import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("7. paging older history neither skips nor repeats, while new messages arrive and timestamps tie at page boundaries")
    func pagingUnderConcurrentSendsWithTies() async throws {
        var quirks = DevServerQuirks.none
        quirks.tiedTimestamps = true
        quirks.tieRunLength = 4
        try await MessagingHarness.with(.testing(quirks: quirks)) { harness in
            let alice = try await harness.register("alice")
            var configuration = MessagingHarness.testConfiguration
            configuration.catchUpLimit = 10
            let bob = try await harness.register("bob", configuration: configuration)
            let group = try await alice.createGroup(name: "paging", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            let early = (0..<60).map { "early \($0)" }
            for text in early { _ = try await alice.send(text: text, to: group.id) }
            await alice.waitForOutbox()
            try await bob.sync()
            #expect(try await bob.timeline(channelID: group.id, limit: 1_000).count == 10, "a catch-up fetches the newest 10")

            // alice keeps sending while bob pages back 7 at a time (boundaries fall inside runs of 4).
            let late = (0..<30).map { "late \($0)" }
            let sending = Task {
                for text in late {
                    _ = try await alice.send(text: text, to: group.id)
                    await alice.waitForOutbox()
                }
            }
            var calls = 0
            while calls < 100 {
                calls += 1
                let older = try await bob.loadOlder(channelID: group.id, limit: 7)
                try await bob.sync()
                if older.reachedStart { break }
                #expect(older.added >= 7)
            }
            try await sending.value
            // More than 10 new messages between two catch-ups leave a gap behind the newest 10
            // (the catch-up's limit): scrolling up fills it too.
            try await bob.sync()
            var last = try await bob.loadOlder(channelID: group.id, limit: 7)
            while !last.reachedStart, calls < 200 {
                calls += 1
                last = try await bob.loadOlder(channelID: group.id, limit: 7)
            }

            let items = try await bob.timeline(channelID: group.id, limit: 1_000)
            let onServer = try await TimelineChecks.serverTimeline(group.id, reader: try await harness.reader(of: bob))
            #expect(items.map(\.messageID) == onServer.map(\.id))
            #expect(items.allSatisfy { $0.state == .decrypted })
            #expect(items.compactMap(\.text).sorted() == (early + late).sorted())
            #expect(try await bob.loadOlder(channelID: group.id, limit: 7) == OlderHistory(added: 0, reachedStart: true))
        }
    }
}
