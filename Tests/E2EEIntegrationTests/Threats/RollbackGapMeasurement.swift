import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// A measured run for issue 42 item 6, not a timed test: off unless `E2EE_MEASURE=1`. Bob
    /// floods a group with more than the catch-up limit plus the scan's bound (25,100 messages
    /// with the defaults, 5,000 + 20,000); Alice, whose store is reopened, listens first, then
    /// sends (`E2EE_MEASURE_SEND_FIRST=1`: sends first). Printed: the page reads and the time of
    /// the send, and whether it renewed the keys; then the same under the reference rate limit.
    @Suite("Measured: the send gate after a flood over the scan's bound (E2EE_MEASURE=1)",
           .enabled(if: ProcessInfo.processInfo.environment["E2EE_MEASURE"] == "1"))
    struct RollbackGapMeasurement {
        /// Counts page reads on the way to the real client.
        final class CountingServer: ForwardingChatServer, @unchecked Sendable {
            let base: any ChatServerAPI
            private let lock = NSLock()
            private var reads = 0
            private var limited = 0
            init(_ base: any ChatServerAPI) { self.base = base }
            var pageReads: Int { lock.withLock { reads } }
            var rateLimited: Int { lock.withLock { limited } }
            func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
                lock.withLock { reads += 1 }
                do {
                    return try await base.messages(channelID: channelID, before: before, limit: limit)
                } catch ServerError.rateLimited(let seconds) {
                    lock.withLock { limited += 1 }
                    throw ServerError.rateLimited(retryAfter: seconds)
                }
            }
        }

        /// Whether Alice listens (catches up) before she sends; `E2EE_MEASURE_SEND_FIRST=1`: she sends first.
        static var listensFirst: Bool { ProcessInfo.processInfo.environment["E2EE_MEASURE_SEND_FIRST"] != "1" }

        static func flood(_ channelID: ChannelID, count: Int, as poster: HTTPChatServer) async throws {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for lane in 0..<4 {
                    tasks.addTask {
                        for index in stride(from: lane, to: count, by: 4) {
                            _ = try await poster.sendMessage(channelID: channelID, OutgoingMessage(content: "junk \(index)"))
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        }

        @Test("listen, then send, after 25,100 messages: page reads, seconds, renewal")
        func measureSendAfterAFloodOverTheBound() async throws {
            let files = try StoreRollbackTests.AliceFiles()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let bob = try await harness.register("bob")
                let firstStore = try KeyStore.open(at: files.url, key: files.key)
                let alice = try await harness.register("alice", store: firstStore)
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.send(text: "hello", to: group.id)
                await alice.waitForOutbox()
                await alice.shutdown()
                try firstStore.close()
                for round in 1...2 {
                    let flooded = ContinuousClock.now
                    try await Self.flood(group.id, count: 25_100, as: try await harness.reader(of: bob))
                    print("MEASURE42 round \(round): flood of 25,100 took \(ContinuousClock.now - flooded)")
                    let store = try KeyStore.open(at: files.url, key: files.key)
                    let counting = CountingServer(try await harness.client(restoring: store))
                    let alice = try await Account.open(server: counting, store: store, configuration: MessagingHarness.testConfiguration)
                    let events = alice.events()
                    let listened = ContinuousClock.now
                    if Self.listensFirst { try await alice.sync() }
                    let listenReads = counting.pageReads
                    print("MEASURE42 round \(round): listen: \(listenReads) page reads, \(ContinuousClock.now - listened)")
                    let sent = ContinuousClock.now
                    let report = try await alice.send(text: "after flood \(round)", to: group.id)
                    await alice.waitForOutbox()
                    let renewed = await firstEvent(in: events, within: 0.5) {
                        if case .keyMaintenance(let report) = $0 { report.signedPrekeyRotated } else { false }
                    } != nil
                    print("MEASURE42 round \(round): send: \(counting.pageReads - listenReads) page reads, \(ContinuousClock.now - sent), state \(report.state), keys renewed: \(renewed)")
                    await alice.shutdown()
                    try store.close()
                }
            }
        }

        @Test("under the reference rate limit (300 requests a minute, Retry-After 10): listen, then send, after 25,100 messages")
        func measureSendUnderTheReferenceRateLimit() async throws {
            let files = try StoreRollbackTests.AliceFiles()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            var restartable = try RestartableDevServer(.testing())
            defer { restartable.remove() }
            let first = try await restartable.start()
            let harness = MessagingHarness(server: first)
            let bob = try await harness.register("bob")
            let firstStore = try KeyStore.open(at: files.url, key: files.key)
            let alice = try await harness.register("alice", store: firstStore)
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            try await alice.send(text: "hello", to: group.id)
            await alice.waitForOutbox()
            await alice.shutdown()
            try firstStore.close()
            try await Self.flood(group.id, count: 25_100, as: try await harness.reader(of: bob))
            await bob.shutdown()
            await first.shutdown()

            // The same server with the reference rate limit; Alice with the library's defaults.
            restartable.configuration.rateLimit = DevServerConfiguration.RateLimit()
            let second = try await restartable.start()
            let store = try KeyStore.open(at: files.url, key: files.key)
            let counting = CountingServer(HTTPChatServer(baseURL: second.baseURL, session: try await AuthSession.restored(from: store)))
            var configuration = AccountConfiguration()
            configuration.recipientPolicy = .surface
            let reader = try await Account.open(server: counting, store: store, configuration: configuration)
            let events = reader.events()
            let failed = Task {
                for await event in events {
                    if case .delivery(let change) = event, change.state == .failed { return true }
                }
                return false
            }
            let started = ContinuousClock.now
            if Self.listensFirst { try await reader.sync() }
            let report = try await reader.send(text: "after the flood", to: group.id)
            print("MEASURE42 rate limited: send returned after \(ContinuousClock.now - started), state \(report.state)")
            var waited = 0
            while try await !reader.outboxEntries(states: [.queued, .sending]).isEmpty, waited < 600 {
                try await Task.sleep(for: .seconds(1))
                waited += 1
            }
            let sent = try await reader.outboxEntries(states: [.queued, .sending, .failed]).isEmpty
            print("MEASURE42 rate limited: sent \(sent) after \(ContinuousClock.now - started); \(counting.pageReads) page reads, \(counting.rateLimited) answered 429")
            await reader.shutdown()
            failed.cancel()
            print("MEASURE42 rate limited: a failed delivery event: \(await failed.value)")
            try store.close()
            await second.shutdown()
        }
    }
}
