import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 items 1 and 2: an app's account (public API, `connect(to:)`, the library's own
    /// HTTP client) while its server stops, hangs, and comes back on the same port.
    @Suite("Server away and restarted on the same port")
    struct ServerRestartTests {
        /// A request of the recipient check every send makes (member and device-list reads,
        /// bundles); no background work reads these (catch-ups retried in the background read
        /// channels and messages).
        private static func isSendRequest(_ requestLine: String) -> Bool {
            ["/members", "/devices", "/keys/"].contains { requestLine.contains($0) }
        }

        @Test("send while the server accepts connections and never answers: queued with no request; sent after a same-port restart and a reconnect")
        func sendWhileHungThenRestart() async throws {
            var restartable = try RestartableDevServer()
            defer { restartable.remove() }
            var server = try await restartable.start()
            let harness = MessagingHarness(server: server)
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let dm = try await harness.acceptedDM(alice, bob)
            let monitor = AccountMonitor(alice, channelIDs: [dm.id])
            await alice.connect(to: try ChatServer(url: server.baseURL))
            #expect(await monitor.waitForConnection(.connected))
            try await alice.send(text: "before", to: dm.id)  // the once-per-channel catch-up before a first send is done
            await alice.waitForOutbox()

            // The server stops; something on its port accepts connections and never answers.
            await server.shutdown()
            let silent = try await SilentServer.start(host: server.host, port: server.port)
            #expect(await monitor.connection.wait {
                switch $0 {
                case .reconnecting, .polling: true
                default: false
                }
            })
            let report = try await alice.send(text: "while away", to: dm.id)
            let requestedBeforeReturn = silent.requestLines.value.filter(Self.isSendRequest)
            #expect(report.state == .queued)
            #expect(requestedBeforeReturn.isEmpty, "send waited on the server: \(requestedBeforeReturn)")
            #expect(try await alice.outboxEntries().map(\.localID) == [report.localID])

            // The server comes back on the same port: the socket is back, the message goes out.
            await silent.stop()
            server = try await restartable.start()
            defer { Task { [server] in await server.shutdown() } }
            #expect(await monitor.waitForConnection(.connected))
            #expect(await eventually(within: .seconds(30)) { (try? await alice.outboxEntries())?.isEmpty == true })
            let back = MessagingHarness(server: server)
            let bobAgain = try await Account.open(server: try await back.client(restoring: bob.store), store: bob.store,
                                                  configuration: MessagingHarness.testConfiguration)
            try await bobAgain.sync()
            #expect(try await bobAgain.timeline(channelID: dm.id, limit: 10).map(\.text) == ["before", "while away"])
            monitor.stop()
            await alice.shutdown()
            await bobAgain.shutdown()
            await bob.shutdown()
        }

        @Test("the library's HTTP client: a call to a stopped server ends refused, not at its deadline; the same port answers again after a restart")
        func refusedCallEndsRefused() async throws {
            var restartable = try RestartableDevServer()
            defer { restartable.remove() }
            var server = try await restartable.start()
            let client = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL),
                                        timeout: .seconds(5), sleep: { _ in })
            try await client.checkHealth()
            await server.shutdown()
            // AsyncHTTPClient's default retries a refused connection, with a backoff that grows
            // past many seconds, until the request's deadline; the library's client gives up on
            // the refusal itself, so the supervisor's health checks reach the server as soon as
            // it is back.
            for _ in 0..<3 {
                var failure: ServerError?
                do { _ = try await client.register(username: "nobody", password: "password123", deviceName: "x") } catch let error as ServerError { failure = error }
                guard case .transport(let reason)? = failure else {
                    Issue.record("expected a transport error, got \(String(describing: failure))")
                    return
                }
                #expect(!reason.contains("deadline"), "the call waited out its deadline: \(reason)")
            }
            server = try await restartable.start()
            try await client.checkHealth()
            await server.shutdown()
        }
    }
}
