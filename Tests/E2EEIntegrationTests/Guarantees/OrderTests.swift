import E2EEDevServer
@_spi(Benchmarks) import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("2. ordered by (created_at, id): messages arriving newest first, with tied timestamps, are each put in place")
    func lateArrivalsAreInsertedInPlace() async throws {
        var quirks = DevServerQuirks.none
        quirks.tiedTimestamps = true
        quirks.tieRunLength = 3
        try await MessagingHarness.with(.testing(quirks: quirks)) { harness in
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let dm = try await harness.acceptedDM(alice, bob)
            try await Self.send((0..<9).map { "m\($0)" }, from: alice, to: dm.id)
            let onServer = try await TimelineChecks.serverTimeline(dm.id, reader: try await harness.reader(of: bob))
            try #require(onServer.count == 9)
            try #require(Set(onServer.map(\.createdAt)).count < 9, "the server tied some timestamps")

            // Newest first, one at a time (each a later arrival of an older message), the first
            // three again at the end as a REST page would bring them.
            for message in onServer.reversed().dropLast(3) {
                _ = try await bob.ingest([message], channelID: dm.id)
            }
            try await bob.sync()
            let items = try await bob.timeline(channelID: dm.id, limit: 100)
            #expect(items.map(\.messageID) == onServer.map(\.id))
            #expect(items.allSatisfy { $0.state == .decrypted })
            #expect(Set(items.compactMap(\.text)) == Set((0..<9).map { "m\($0)" }))
            #expect(TimelineChecks.isOrdered(items))
        }
    }
}
