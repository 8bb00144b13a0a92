import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import NIOCore
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 10 against a server that fails one channel's pages: a 500, a
    /// 429, a stall past the request deadline or pages that never end in `team-bad` leave
    /// `team-ok` caught up, the failure recorded for `team-bad` alone, and the memory one
    /// catch-up holds bounded.
    @Suite("10. One bad channel never stops the others")
    struct ChannelIsolationTests {
        /// Alice's two groups with Bob, both read once by Bob; then a new message in team-ok
        /// that Bob has not read.
        private static func twoTeams(_ harness: MessagingHarness, bob: Account? = nil) async throws
            -> (alice: Account, bob: Account, ok: ChatChannel, bad: ChatChannel) {
            let alice = try await harness.register("alice")
            var reader = bob
            if reader == nil { reader = try await harness.register("bob") }
            let bob = try #require(reader)
            let ok = try await alice.createGroup(name: "team-ok", members: [bob.userID])
            try await harness.accept(ok, on: [bob])
            let bad = try await alice.createGroup(name: "team-bad", members: [bob.userID])
            try await harness.accept(bad, on: [bob])
            try await alice.send(text: "ok one", to: ok.id)
            try await alice.send(text: "bad one", to: bad.id)
            await alice.waitForOutbox()
            try await bob.sync()
            try await alice.send(text: "ok two", to: ok.id)
            await alice.waitForOutbox()
            return (alice, bob, ok, bad)
        }

        private static func readable(_ account: Account, _ channelID: String) async throws -> [String] {
            try await account.timeline(channelID: ChannelID(channelID)).compactMap { $0.state == .decrypted ? $0.text : nil }
        }

        /// Bob's sync with `fault` on team-bad's pages: it returns, team-ok's new message is
        /// read, and the failure is team-bad's alone.
        private static func badChannelLeavesTheOtherCaughtUp(_ fault: FaultInjector.PageFault, timeout: TimeAmount = .seconds(30)) async throws {
            try await MessagingHarness.with { harness in
                let store = try KeyStore.inMemory()
                let http = HTTPChatServer(baseURL: harness.server.baseURL, session: AuthSession(keyStore: store, serverURL: harness.server.baseURL),
                                          timeout: timeout, sleep: { _ in })
                let bob = try await Account.register(username: "bob", password: "password123", deviceName: "phone", server: http, store: store,
                                                     configuration: MessagingHarness.testConfiguration)
                _ = try await bob.bootstrapKeys()
                let (alice, _, ok, bad) = try await twoTeams(harness, bob: bob)
                await harness.server.faults.faultPages(ofChannel: bad.id.rawValue, fault)

                try await bob.sync()  // team-bad's failure stays with team-bad

                #expect(try await readable(bob, ok.id.rawValue) == ["ok one", "ok two"])
                let failures = await bob.channelSyncFailures()
                #expect(failures.map(\.channelID) == [bad.id])
                #expect(failures.allSatisfy { ($0.retryAt?.microseconds ?? 0) > $0.at.microseconds }, "each failure has its backoff")
                // The channel asked for answers for itself.
                try await bob.sync(channelID: ok.id)
                await #expect(throws: ServerError.self) { try await bob.sync(channelID: bad.id) }
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a 500 on team-bad's pages: team-ok is caught up, team-bad's failure is recorded for it")
        func serverErrorInOneChannel() async throws {
            try await Self.badChannelLeavesTheOtherCaughtUp(.status(500))
        }

        @Test("a 429 on team-bad's pages: team-ok is caught up, team-bad waits for its Retry-After")
        func rateLimitInOneChannel() async throws {
            try await Self.badChannelLeavesTheOtherCaughtUp(.status(429))
        }

        @Test("team-bad's pages stall past the request deadline: team-ok is caught up")
        func stallInOneChannel() async throws {
            try await Self.badChannelLeavesTheOtherCaughtUp(.stall(.seconds(6)), timeout: .seconds(2))
        }

        @Test("team-bad recovers: its own retry (after its backoff, no sync asked) reads the message it missed")
        func failedChannelIsRetriedOnItsOwn() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, ok, bad) = try await Self.twoTeams(harness)
                await harness.server.faults.faultPages(ofChannel: bad.id.rawValue, .status(503))
                try await alice.send(text: "bad two", to: bad.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(await bob.channelSyncFailures().map(\.channelID) == [bad.id])
                let monitor = AccountMonitor(bob, channelIDs: [ok.id, bad.id])
                await harness.server.faults.faultPages(ofChannel: bad.id.rawValue, nil)

                // The first retry is due 5 s after the failure; nothing else reads team-bad.
                #expect(await monitor.waitForReadable([ok.id: 2, bad.id: 2], limit: .seconds(30)))
                #expect(try await Self.readable(bob, bad.id.rawValue) == ["bad one", "bad two"])
                // The record is cleared when the retry's catch-up ends, just after the message it
                // read was committed and announced: wait for that, not for the announcement.
                #expect(await eventually(within: .seconds(5)) { await bob.channelSyncFailures().isEmpty })
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("team-bad's pages never end: the catch-up stops at its byte bound and team-ok is caught up")
        func endlessPagesInOneChannel() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, ok, bad) = try await Self.twoTeams(harness)
                // 50 messages of 20,000 characters a page: about 1 MB a page.
                await harness.server.faults.faultPages(ofChannel: bad.id.rawValue, .endless(contentLength: 20_000))

                try await bob.sync()

                #expect(try await Self.readable(bob, ok.id.rawValue) == ["ok one", "ok two"])
                // 8 MiB of content is about 8.4 pages; without the bound the catch-up read
                // 5,000 messages (100 pages, 100 MB) before it stored any.
                let reads = await harness.server.faults.faultedPageReads(ofChannel: bad.id.rawValue)
                #expect(reads <= 10, "read \(reads) endless pages in one catch-up")
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}

extension IntegrationTests {
    /// docs/spec/sync.md guarantee 10 against a flood of channels, with the reference server's
    /// rate limit (300 requests per minute per IP) on.
    @Suite("10. A flood of channels delays, never aborts")
    struct ChannelFloodTests {
        @Test("Bob is added to 1,500 channels: his catch-up stays within the rate limit and his real channel is read first")
        func fifteenHundredChannels() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.rateLimit = DevServerConfiguration.RateLimit()
            try await MessagingHarness.with(configuration) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let team = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(team, on: [bob])
                try await alice.send(text: "one", to: team.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let mallory = try await harness.register("mallory")
                let flood = try await harness.server.addToNewChannels(userID: bob.userID.rawValue, createdBy: mallory.userID.rawValue, count: 1_500)
                try await alice.send(text: "two", to: team.id)
                await alice.waitForOutbox()

                try await bob.sync()  // not aborted by a 429

                #expect(try await bob.timeline(channelID: team.id).compactMap(\.text) == ["one", "two"])
                #expect(await bob.channelSyncFailures().isEmpty)
                #expect(try await bob.channels().count == flood.count + 1, "every channel is known, the rest are read later")
                await alice.shutdown()
                await bob.shutdown()
                await mallory.shutdown()
            }
        }
    }
}
