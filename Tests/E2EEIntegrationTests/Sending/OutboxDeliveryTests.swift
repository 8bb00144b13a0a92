import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// The outbox through a server that fails, loses answers, is down, and a sender that is
    /// killed mid-send: every message ends on the server exactly once, or failed and retryable.
    @Suite("Outbox delivery")
    struct OutboxDeliveryTests {
        /// Alice (through `api`) and Bob with a DM between them, one message already sent so
        /// the member list is cached and both sessions exist (device lists are read before
        /// every send: faults meant for the POST are injected with ``UnreliableServer/beforeNextPost(_:)``).
        private func dmSetUp(_ harness: MessagingHarness, store: KeyStore? = nil, wrap: @escaping (HTTPChatServer) -> any ChatServerAPI = { $0 })
            async throws -> (alice: Account, bob: Account, channelID: ChannelID) {
            let alice = try await harness.register("alice", store: store, api: wrap)
            let bob = try await harness.register("bob")
            let dm = try await alice.openDirectMessage(with: bob.userID)
            try await alice.send(text: "warm-up", to: dm.id)
            await alice.waitForOutbox()
            return (alice, bob, dm.id)
        }

        /// How many copies of the entry's exact bytes (as `store` recorded them) the server holds.
        private func copies(of entry: SendReport, from store: KeyStore, in channelID: ChannelID, harness: MessagingHarness, reader: Account) async throws -> Int {
            let content = try #require(try await outboxRecord(store, entry.localID.rawValue)).content
            return try await harness.serverMessages(channelID, as: try await harness.reader(of: reader)).filter { $0.content == content }.count
        }

        @Test("server errors: retried with the same bytes, delivered once")
        func serverErrorsAreRetried() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let (alice, bob, channel) = try await dmSetUp(harness) { box.wrap($0) }
                let faults = harness.server.faults
                box.server?.beforeNextPost { await faults.failNextRequests(2, status: 500, plainText: true) }
                let entry = try await alice.send(text: "through errors", to: channel)
                await alice.waitForOutbox()
                let sent = try #require(try await alice.outboxEntries(states: [.sent]).first { $0.localID == entry.localID })
                // Attempt 1: the POST gets a 500. Attempt 2: the read that reconciles an unknown
                // outcome gets the second 500. Attempt 3: nothing found, the same bytes posted.
                #expect(sent.attempts == 3)
                #expect(try await copies(of: entry, from: alice.store, in: channel, harness: harness, reader: bob) == 1)
            }
        }

        @Test("a POST stored but unanswered is found by content hash, not posted again")
        func unansweredPostIsReconciled() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let (alice, bob, channel) = try await dmSetUp(harness) { box.wrap($0) }
                box.server?.loseAnswers(1)
                let entry = try await alice.send(text: "lost answer", to: channel)
                await alice.waitForOutbox()
                let sent = try #require(try await alice.outboxEntries(states: [.sent]).first { $0.localID == entry.localID })
                let content = try #require(try await outboxRecord(alice.store, entry.localID.rawValue)).content
                let onServer = try await harness.serverMessages(channel, as: try await harness.reader(of: bob)).filter { $0.content == content }
                #expect(onServer.map(\.id) == [try #require(sent.serverMessageID)])
                #expect(box.server?.postsStored == 2)
            }
        }

        @Test("a copy the server stored twice (the row was not readable yet) is deleted again")
        func doubledPostIsDeleted() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let (alice, bob, channel) = try await dmSetUp(harness) { box.wrap($0) }
                box.server?.loseAnswers(1)
                box.server?.hideRecentMessages(1)
                let entry = try await alice.send(text: "stored twice", to: channel)
                await alice.waitForOutbox()
                let reader = try await harness.reader(of: bob)
                let content = try #require(try await outboxRecord(alice.store, entry.localID.rawValue)).content
                let both = try await harness.serverMessages(channel, as: reader).filter { $0.content == content }
                #expect(both.count == 2)
                // Our own message shows up (socket echo or REST page): the extra copy goes.
                for message in both { _ = try await alice.ownMessageSeen(message) }
                let sent = try #require(try await alice.outboxEntries(states: [.sent, .delivered]).first { $0.localID == entry.localID })
                let left = try await harness.serverMessages(channel, as: reader).filter { $0.content == content }
                #expect(left.map(\.id) == [try #require(sent.serverMessageID)])
                #expect(sent.state == .delivered)
            }
        }

        @Test("server down: failed after 3 attempts, nothing lost; a manual retry delivers it once")
        func serverDownThenRetry() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let (alice, bob, channel) = try await dmSetUp(harness) { box.wrap($0) }
                let faults = harness.server.faults
                box.server?.beforeNextPost { await faults.failNextRequests(20, status: 503, plainText: true) }
                let entry = try await alice.send(text: "while down", to: channel)
                await alice.waitForOutbox()
                let failed = try #require(try await alice.outboxEntries(states: [.failed]).first { $0.localID == entry.localID })
                #expect(failed.attempts == 3)
                await harness.server.faults.reset()
                try await alice.retry(entry.localID)
                await alice.waitForOutbox()
                #expect(try await alice.outboxEntries(states: [.sent]).contains { $0.localID == entry.localID })
                #expect(try await copies(of: entry, from: alice.store, in: channel, harness: harness, reader: bob) == 1)
            }
        }

        @Test("killed mid-send after the server stored it: the reopened account reconciles, no double")
        func killDuringSendIsNotDoubled() async throws {
            try await MessagingHarness.with { harness in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-outbox-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let key = StoreKey.random()
                let store = try KeyStore.open(at: directory.appendingPathComponent("alice.sqlite"), key: key)
                let box = UnreliableBox()
                let (alice, bob, channel) = try await dmSetUp(harness, store: store) { box.wrap($0) }
                box.server?.hangAfterNextPost()
                let entry = try await alice.send(text: "in flight", to: channel)
                while box.server?.postsStored != 2 { try await Task.sleep(nanoseconds: 10_000_000) }
                // The "kill": sending stops with the entry mid-send; nothing more runs for it.
                await alice.shutdown()
                #expect(try await store.outbox(states: [.sending]).map(\.localID) == [entry.localID.rawValue])

                let reopened = try await Account.open(server: try await harness.client(restoring: store), store: store,
                                                      configuration: MessagingHarness.testConfiguration)
                await reopened.waitForOutbox()
                #expect(try await reopened.outboxEntries(states: [.sent]).contains { $0.localID == entry.localID })
                #expect(try await copies(of: entry, from: store, in: channel, harness: harness, reader: bob) == 1)
            }
        }

        @Test("killed after queueing, before posting: the reopened account posts it once")
        func killBeforePostIsSentOnRestart() async throws {
            try await MessagingHarness.with { harness in
                let store = try KeyStore.inMemory()
                let (alice, bob, channel) = try await dmSetUp(harness, store: store)
                await alice.shutdown()
                let entry = try await alice.send(text: "queued only", to: channel)
                #expect(entry.state == .queued)
                let reopened = try await Account.open(server: try await harness.client(restoring: store), store: store,
                                                      configuration: MessagingHarness.testConfiguration)
                await reopened.waitForOutbox()
                #expect(try await reopened.outboxEntries(states: [.sent]).contains { $0.localID == entry.localID })
                #expect(try await copies(of: entry, from: store, in: channel, harness: harness, reader: bob) == 1)
            }
        }
    }
}

/// Holds the unreliable wrapper made inside the harness's client factory.
final class UnreliableBox: @unchecked Sendable {
    private let lock = NSLock()
    private var wrapped: UnreliableServer?
    var server: UnreliableServer? { lock.withLock { wrapped } }

    func wrap(_ base: HTTPChatServer) -> any ChatServerAPI {
        let server = UnreliableServer(base)
        lock.withLock { wrapped = server }
        return server
    }
}
