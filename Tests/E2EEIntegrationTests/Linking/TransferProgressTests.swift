import E2EEDevServer
@testable import E2EEMessaging
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.6, the primary's end: the progress it reports while it sends
    /// counts the records the new device has acknowledged.
    @Suite("Link transfer: progress on the primary")
    struct TransferProgressTests {
        @Test("the primary's progress events count acknowledged records as acknowledgements arrive, never backwards, up to all of them")
        func primaryCountsAcknowledgedRecords() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                for index in 0..<8 { _ = try await scene.bob.createGroup(name: "group \(index)", members: [scene.alice.userID]) }
                try await TransferIntegrationTests.restartPrimary(&scene, harness: harness)  // one record a chunk
                let events = EventLog(scene.bob)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let primary = scene.bob
                try await TransferIntegrationTests.pump(primary, laptop, "the transfer") {
                    try await primary.transfers().first?.state == .done
                }
                let sending = await events.all().compactMap { event -> TransferProgress? in
                    guard case .linking(.transfer(let progress)) = event, case .sending = progress.direction else { return nil }
                    return progress
                }
                let expected = try #require(sending.last?.recordsExpected)
                let done = sending.map(\.recordsDone)
                #expect(sending.last?.state == .done && done.last == expected, "\(done) of \(expected)")
                #expect(done.contains { $0 > 0 && $0 < expected }, "no report between the start and the end: \(done) of \(expected)")
                #expect(zip(done, done.dropFirst()).allSatisfy { $0 <= $1 }, "the count went back: \(done)")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}
