import E2EEDevServer
import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    /// 200 messages wait on the server for a device that has never synced; its catch-up takes
    /// the newest 50 (whose keys are further back: they wait pending), and scrolling up with
    /// `loadOlder` brings the rest, the keys with them, until the channel's first message.
    private func scrollUpThroughHistory(group: Bool) async throws {
        var quirks = DevServerQuirks.none
        quirks.tiedTimestamps = true
        try await MessagingHarness.with(.testing(quirks: quirks)) { harness in
            let alice = try await harness.register("alice")
            var configuration = MessagingHarness.testConfiguration
            configuration.catchUpLimit = 50
            let bob = try await harness.register("bob", configuration: configuration)
            let channel = group ? try await alice.createGroup(name: "history", members: [bob.userID])
                                : try await alice.openDirectMessage(with: bob.userID)
            try await harness.accept(channel, on: [bob], between: (alice.userID, bob.userID))
            let sent = (0..<200).map { "message \($0)" }
            for text in sent { _ = try await alice.send(text: text, to: channel.id) }
            await alice.waitForOutbox()

            try await bob.sync()
            #expect(try await bob.timeline(channelID: channel.id, limit: 1_000).count == 50)
            var loads: [OlderHistory] = []
            while loads.count < 50, loads.last?.reachedStart != true {
                loads.append(try await bob.loadOlder(channelID: channel.id, limit: 30))
            }
            #expect(loads.last?.reachedStart == true)
            #expect(loads.map(\.added).reduce(0, +) == 150)
            #expect(loads.dropLast().allSatisfy { $0.added >= 30 })

            let items = try await bob.timeline(channelID: channel.id, limit: 1_000)
            let onServer = try await TimelineChecks.serverTimeline(channel.id, reader: try await harness.reader(of: bob))
            #expect(items.map(\.messageID) == onServer.map(\.id))
            #expect(items.allSatisfy { $0.state == .decrypted })
            #expect(items.compactMap(\.text).sorted() == sent.sorted())
            #expect(try await bob.loadOlder(channelID: channel.id) == OlderHistory(added: 0, reachedStart: true))
        }
    }

    @Test("older history: a fresh device's group gets the newest 50 by catch-up and the other 150 (two sender keys back) by loadOlder")
    func olderGroupHistory() async throws {
        try await scrollUpThroughHistory(group: true)
    }

    @Test("older history: a fresh device's DM gets the newest 50 by catch-up and the other 150 (the session's start) by loadOlder")
    func olderDirectMessageHistory() async throws {
        try await scrollUpThroughHistory(group: false)
    }

    @Test("older history: the gap a catch-up leaves when more than its limit arrived while offline is filled by loadOlder")
    func gapBehindACatchUpAtItsLimit() async throws {
        try await MessagingHarness.with { harness in
            let alice = try await harness.register("alice")
            var configuration = MessagingHarness.testConfiguration
            configuration.catchUpLimit = 20
            let bob = try await harness.register("bob", configuration: configuration)
            let group = try await alice.createGroup(name: "gap", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            let before = (0..<10).map { "before \($0)" }
            for text in before { _ = try await alice.send(text: text, to: group.id) }
            await alice.waitForOutbox()
            try await bob.sync()
            #expect(try await bob.loadOlder(channelID: group.id) == OlderHistory(added: 0, reachedStart: true))

            let offline = (0..<50).map { "offline \($0)" }
            for text in offline { _ = try await alice.send(text: text, to: group.id) }
            await alice.waitForOutbox()
            try await bob.sync()
            #expect(try await bob.timeline(channelID: group.id, limit: 1_000).count == 30, "10 kept, the newest 20 fetched, 30 missing between")
            var loads: [OlderHistory] = []
            while loads.count < 20, loads.last?.reachedStart != true {
                loads.append(try await bob.loadOlder(channelID: group.id, limit: 10))
            }
            #expect(loads.map(\.added).reduce(0, +) == 30)
            #expect(loads.last?.reachedStart == true)
            let items = try await bob.timeline(channelID: group.id, limit: 1_000)
            #expect(items.map(\.messageID) == (try await TimelineChecks.serverTimeline(group.id, reader: try await harness.reader(of: bob))).map(\.id))
            #expect(items.compactMap(\.text).sorted() == (before + offline).sorted())
        }
    }
}
