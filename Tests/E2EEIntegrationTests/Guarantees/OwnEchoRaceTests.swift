import E2EEDevServer
import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    /// Found by the soak: our own echo and the POST's 201 arrive together; the echo's check
    /// ("is this id ours?") ran before the 201 was recorded and its content-hash lookup after,
    /// so the one copy looked like a second one and was deleted from the server.
    @Test("1. nothing missed: our own echo racing the POST's answer never deletes the message it echoes")
    func ownEchoRacingThePostAnswerKeepsTheMessage() async throws {
        try await MessagingHarness.with { harness in
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let dm = try await alice.openDirectMessage(with: bob.userID)
            let monitor = try await Self.connect(alice, harness, watching: [dm.id])
            let sent = (0..<150).map { "echoed \($0)" }
            for text in sent { _ = try await alice.send(text: text, to: dm.id) }
            await alice.waitForOutbox()
            #expect(await monitor.waitForReadable([dm.id: sent.count], limit: .seconds(30)))
            let onServer = try await TimelineChecks.serverTimeline(dm.id, reader: try await harness.reader(of: bob))
            #expect(onServer.count == sent.count)
            let items = try await alice.timeline(channelID: dm.id, limit: 1_000)
            #expect(items.filter { $0.state == .deleted }.count == 0)
            #expect(Set(items.compactMap(\.text)) == Set(sent) && items.count == sent.count)
            monitor.stop()
            await alice.shutdown()
        }
    }
}
