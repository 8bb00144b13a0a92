import AsyncHTTPClient
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md "Outbox" (issue 17 item 2): a message sent while the server is down is not
    /// failed. It stays queued (even unencrypted, when the member list could not be read),
    /// survives a restart of the sender, and goes out in order, once, when the server answers.
    @Suite("Outbox while the server is unreachable")
    struct UnreachableServerTests {
        /// A dev server whose state lives in a file, so it can be stopped and started again on
        /// the same port.
        private struct RestartableServer {
            let directory: URL
            var configuration: DevServerConfiguration

            init() throws {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-unreachable-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                configuration = .testing()
                configuration.databasePath = directory.appendingPathComponent("server.sqlite").path
            }

            mutating func start() async throws -> RunningDevServer {
                let server = try await DevServer.start(configuration: configuration)
                configuration.port = server.port
                return server
            }
        }

        /// A client that, like an app's offline check or the tool's, does not keep retrying a
        /// refused connection until the request times out: a try against the stopped server
        /// ends at once, unanswered.
        private static let failFast: HTTPClient = {
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(10))
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }()

        private static func failFast(store: KeyStore, baseURL: String) -> any ChatServerAPI {
            HTTPChatServer(baseURL: baseURL, session: AuthSession(keyStore: store, serverURL: baseURL), client: failFast, sleep: { _ in })
        }

        /// The server started, Alice registered on a store file with a client that fails fast
        /// (``configuration``), and Bob.
        private static func aliceOnAFileAndBob(_ restartable: inout RestartableServer) async throws
            -> (RunningDevServer, KeyStore, MessagingHarness, Account, Account) {
            let server = try await restartable.start()
            let store = try KeyStore.open(at: restartable.directory.appendingPathComponent("alice.sqlite"), key: StoreKey.random())
            let harness = MessagingHarness(server: server)
            let alice = try await harness.register("alice", store: store, configuration: configuration) { _ in
                failFast(store: store, baseURL: server.baseURL)
            }
            return (server, store, harness, alice, try await harness.register("bob"))
        }

        /// Members are re-read before every send (lifetime 0), so a send while the server is
        /// down cannot even be encrypted: the draft path.
        private static let configuration = AccountConfiguration(memberLifetime: .zero, outbox: OutboxPolicy(maxAttempts: 3, backoff: [.zero, .zero]),
                                                                sleep: { _ in })

        @Test("sent while down: queued (not failed), across a restart, then delivered in order exactly once")
        func sendsWhileDownGoOutWhenTheServerIsBack() async throws {
            var restartable = try RestartableServer()
            defer { try? FileManager.default.removeItem(at: restartable.directory) }
            let (started, store, harness, alice, bob) = try await Self.aliceOnAFileAndBob(&restartable)
            var server = started
            let dm = try await harness.acceptedDM(alice, bob)
            try await alice.send(text: "before", to: dm.id)
            await alice.waitForOutbox()
            await bob.shutdown()
            await server.shutdown()

            let texts = ["one", "two", "three"]
            var localIDs: [OutboxEntryID] = []
            for text in texts {
                let entry = try await alice.send(text: text, to: dm.id)
                #expect(entry.state == .queued, "\(text) is queued, not failed")
                localIDs.append(entry.localID)
            }
            await alice.waitForOutbox()
            let waiting = try await alice.outboxEntries()
            #expect(waiting.map(\.localID) == localIDs)
            #expect(waiting.allSatisfy { $0.state == .queued }, "\(waiting.map(\.state))")
            for entry in waiting { #expect(try await outboxRecord(alice.store, entry.localID.rawValue)?.answeredFailures == 0) }
            #expect(waiting.first?.lastError?.contains("unreachable") == true)
            await alice.shutdown()  // the sender "restarts" while the server is still down

            server = try await restartable.start()
            defer { Task { [server] in await server.shutdown() } }
            let back = MessagingHarness(server: server)
            let reopened = try await Account.open(server: HTTPChatServer(baseURL: server.baseURL, session: try await AuthSession.restored(from: store),
                                                                         client: Self.failFast, sleep: { _ in }),
                                                  store: store, configuration: Self.configuration)
            await reopened.waitForOutbox()
            let sent = try await reopened.outboxEntries(states: [.sent, .delivered])
            #expect(Set(localIDs).isSubset(of: Set(sent.map(\.localID))))
            #expect(try await reopened.outboxEntries().isEmpty)

            let onServer = try await back.serverMessages(dm.id, as: try await back.reader(of: reopened))
            let bobAgain = try await Account.open(server: try await back.client(restoring: bob.store), store: bob.store,
                                                  configuration: MessagingHarness.testConfiguration)
            try await bobAgain.sync()
            let read = try await bobAgain.timeline(channelID: dm.id, limit: 50).map(\.text)
            #expect(onServer.count == 4, "each message posted once")
            #expect(read == ["before"] + texts)
            await reopened.shutdown()
            await bobAgain.shutdown()
        }

        @Test("waitForOutboxToSettle returns once a try went unanswered, without waiting out the retry schedule; the entry stays queued")
        func settleDoesNotWaitOutTheRetrySchedule() async throws {
            var restartable = try RestartableServer()
            defer { try? FileManager.default.removeItem(at: restartable.directory) }
            let server = try await restartable.start()
            let harness = MessagingHarness(server: server)
            let store = try KeyStore.inMemory()
            // The outbox's wait between tries never ends: only a wait that does not sit it out returns.
            var configuration = Self.configuration
            configuration.outbox = OutboxPolicy(maxAttempts: 3, backoff: [.seconds(3_600)])
            configuration.sleep = { _ in try await Task.sleep(for: .seconds(3_600)) }
            let alice = try await harness.register("alice", store: store, configuration: configuration) { _ in
                Self.failFast(store: store, baseURL: server.baseURL)
            }
            let bob = try await harness.register("bob")
            let dm = try await alice.openDirectMessage(with: bob.userID)
            await server.shutdown()
            let entry = try await alice.send(text: "while down", to: dm.id)
            let settled = await withTaskGroup(of: Bool.self) { group in
                group.addTask { await alice.waitForOutboxToSettle(); return true }
                group.addTask { try? await Task.sleep(for: .seconds(60)); return false }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(settled, "waitForOutboxToSettle returned while the outbox waits for its next try")
            #expect(try await alice.outboxEntries().map(\.localID) == [entry.localID])
            #expect(try await alice.outboxEntries().first?.state == .queued)
            await alice.shutdown()
            await bob.shutdown()
        }

        @Test("a server that answers with errors still fails the entry after 3 answered attempts")
        func answeredErrorsStillFail() async throws {
            try await MessagingHarness.with { harness in
                let box = UnreliableBox()
                let alice = try await harness.register("alice") { box.wrap($0) }
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "warm-up", to: dm.id)
                await alice.waitForOutbox()
                let faults = harness.server.faults
                box.server?.beforeNextPost { await faults.failNextRequests(20, status: 503, plainText: true) }
                let entry = try await alice.send(text: "refused", to: dm.id)
                await alice.waitForOutbox()
                let failed = try await alice.outboxEntries(states: [.failed])
                #expect(failed.map(\.localID) == [entry.localID])
                #expect(try await outboxRecord(alice.store, entry.localID.rawValue)?.answeredFailures == 3)
            }
        }

        @Test("cancel removes a waiting entry; it is never posted")
        func cancelledEntryIsNeverPosted() async throws {
            var restartable = try RestartableServer()
            defer { try? FileManager.default.removeItem(at: restartable.directory) }
            var server = try await restartable.start()
            let harness = MessagingHarness(server: server)
            let aliceStore = try KeyStore.inMemory()
            let alice = try await harness.register("alice", store: aliceStore, configuration: Self.configuration) { _ in
                Self.failFast(store: aliceStore, baseURL: server.baseURL)
            }
            let bob = try await harness.register("bob")
            let dm = try await alice.openDirectMessage(with: bob.userID)
            await server.shutdown()
            let kept = try await alice.send(text: "kept", to: dm.id)
            let dropped = try await alice.send(text: "dropped", to: dm.id)
            await alice.waitForOutbox()
            try await alice.cancelOutboxEntry(dropped.localID)
            await #expect(throws: MessagingError.unknownOutboxEntry(dropped.localID.rawValue)) { try await alice.cancelOutboxEntry(dropped.localID) }
            server = try await restartable.start()
            try await alice.resumeOutbox()
            await alice.waitForOutbox()
            #expect(try await alice.outboxEntries(states: [.sent]).map(\.localID) == [kept.localID])
            let onServer = try await harness.serverMessages(dm.id, as: try await harness.reader(of: bob))
            #expect(onServer.count == 1)
            await alice.shutdown()
            await bob.shutdown()
            await server.shutdown()
        }

        @Test("T11: a draft queued while the server was down goes to the recipients approved then; a stranger who joined meanwhile gets nothing")
        func offlineDraftSkipsStrangerWhoJoined() async throws {
            var restartable = try RestartableServer()
            defer { try? FileManager.default.removeItem(at: restartable.directory) }
            let (started, store, _, alice, bob) = try await Self.aliceOnAFileAndBob(&restartable)
            var server = started
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            _ = try await bob.acceptChannel(group.id)
            try await alice.send(text: "before", to: group.id)
            await alice.waitForOutbox()
            await server.shutdown()

            let draft = try await alice.send(text: "written offline", to: group.id)
            #expect(draft.state == .queued)
            await alice.shutdown()

            server = try await restartable.start()
            defer { Task { [server] in await server.shutdown() } }
            let back = MessagingHarness(server: server)
            let mallory = try await back.register("mallory")
            try await back.reader(of: mallory).joinChannel(id: group.id)
            let reopened = try await Account.open(server: HTTPChatServer(baseURL: server.baseURL, session: try await AuthSession.restored(from: store),
                                                                         client: Self.failFast, sleep: { _ in }),
                                                  store: store, configuration: Self.configuration)
            await reopened.waitForOutbox()
            #expect(try await reopened.outboxEntries(states: [.sent, .delivered]).map(\.localID).contains(draft.localID))
            #expect(try await reopened.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
            let posted = try await back.serverMessages(group.id, as: try await back.reader(of: mallory))
            #expect(try posted.allSatisfy { try !recipientDevices(of: $0).contains(mallory.deviceID) })
            #expect(try await readableTexts(mallory, group.id).isEmpty)
            await reopened.shutdown()
        }
    }
}
