import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    /// docs/spec/sync.md's keepalive with short intervals: a dead peer whose TCP connection stays open is
    /// detected, a live one is not.
    @Suite("WebSocket keepalive")
    struct KeepaliveTests {
        private static let fast = RealtimeConnectionOptions(pingInterval: .milliseconds(200), missedPongLimit: 2,
                                                            idleTimeout: .milliseconds(600))

        private func open(_ harness: TransportHarness, _ options: RealtimeConnectionOptions) async throws -> (any RealtimeConnection, UpdateInbox) {
            let (alice, _) = try await harness.registered("alice")
            let connector = WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL, options: options)
            let connection = try await connector.connect(ticket: try await alice.webSocketTicket())
            return (connection, UpdateInbox(connection))
        }

        private func lostReason(_ update: RealtimeUpdate?) -> String? {
            guard case .closed(.connectionLost(let reason)) = update else { return nil }
            return reason
        }

        @Test func aSilentServerThatAnswersNoPingIsDeclaredDead() async throws {
            try await TransportHarness.with { harness in
                await harness.server.faults.goSilent(true)
                await harness.server.faults.ignoreClientFrames(true)
                let (_, inbox) = try await open(harness, Self.fast)
                let reason = lostReason(await inbox.next(timeout: 10))
                #expect(reason?.hasPrefix("keepalive: ") == true, "got \(String(describing: reason))")
            }
        }

        @Test func missedPongsAloneEndTheConnectionWhenTheServerDoesNotPing() async throws {
            try await TransportHarness.with { harness in
                await harness.server.faults.goSilent(true)
                await harness.server.faults.ignoreClientFrames(true)
                let options = RealtimeConnectionOptions(pingInterval: .milliseconds(200), missedPongLimit: 2, idleTimeout: nil)
                let (_, inbox) = try await open(harness, options)
                #expect(lostReason(await inbox.next(timeout: 10)) == "keepalive: 2 pings unanswered")
            }
        }

        @Test func whileServerPingsArriveTheConnectionLivesAndWhenTheyStopTheWatchdogFires() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.pingInterval = .milliseconds(50)
            try await TransportHarness.with(configuration) { harness in
                // The server reads nothing we send, so a ping of ours would go unanswered and two
                // of them (by 600 ms) would end the connection. One keepalive: its own pings keep
                // arriving, so we send none (SingleKeepaliveTests checks the rule) and live on.
                await harness.server.faults.ignoreClientFrames(true)
                let (connection, inbox) = try await open(harness, Self.fast)
                #expect(await inbox.next(timeout: 1.5) == nil, "open while the server pings")
                // The server goes silent: our own pings resume, go unanswered, and the watchdog
                // still ends the connection.
                await harness.server.faults.goSilent(true)
                let reason = lostReason(await inbox.next(timeout: 10))
                #expect(reason?.hasPrefix("keepalive: ") == true, "got \(String(describing: reason))")
                _ = connection
            }
        }

        @Test func noFrameForTheIdleTimeoutEndsTheConnection() async throws {
            try await TransportHarness.with { harness in
                await harness.server.faults.goSilent(true)
                let options = RealtimeConnectionOptions(pingInterval: nil, idleTimeout: .milliseconds(600))
                let (_, inbox) = try await open(harness, options)
                let reason = lostReason(await inbox.next(timeout: 10))
                #expect(reason?.hasPrefix("keepalive: no frame for ") == true, "got \(String(describing: reason))")
            }
        }

        @Test func aLiveServerKeepsTheConnectionOpen() async throws {
            try await TransportHarness.with { harness in
                // The server itself pings only every 20 s: our pings' pongs are what keeps it alive.
                let (connection, inbox) = try await open(harness, Self.fast)
                #expect(await inbox.next(timeout: 2) == nil, "no close across ten ping intervals")
                await connection.close()
                #expect(await inbox.next() == .closed(.closedByClient))
            }
        }

        @Test func serverPingsCountAsFrames() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.pingInterval = .milliseconds(50)
            try await TransportHarness.with(configuration) { harness in
                // No client pings and no events: only the server's pings reach the idle rule.
                let options = RealtimeConnectionOptions(pingInterval: nil, idleTimeout: .milliseconds(600))
                let (connection, inbox) = try await open(harness, options)
                #expect(await inbox.next(timeout: 1.5) == nil, "server pings count as frames")
                await connection.close()
                #expect(await inbox.next() == .closed(.closedByClient))
            }
        }
    }
}
