import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 42 item 7 over loopback: the development server answers `GET /health`, while the
    /// tickets get no answer (a load balancer whose socket backend is down). The supervisor's
    /// health checks may bring an attempt forward once, not one attempt per check
    /// (docs/spec/sync.md §11.2). Timings scaled down: checks every 10 ms, the backoff capped at
    /// 200 ms, so 3 s hold about 30 backoff attempts and 300 checks.
    @Suite("Health answers, tickets do not: attempts stay on the backoff")
    struct HealthyButUnreachableTests {
        /// The real client, except that a ticket gets no answer; counts tickets and checks.
        final class NoTickets: ForwardingChatServer, @unchecked Sendable {
            let base: any ChatServerAPI
            private let lock = NSLock()
            private var tickets = 0
            private var checks = 0
            init(_ base: any ChatServerAPI) { self.base = base }
            var ticketRequests: Int { lock.withLock { tickets } }
            var healthChecks: Int { lock.withLock { checks } }
            func webSocketTicket() async throws -> String {
                lock.withLock { tickets += 1 }
                throw ServerError.transport("connection reset: the socket backend is down")
            }
            func checkHealth() async throws {
                lock.withLock { checks += 1 }
                try await base.checkHealth()
            }
        }

        @Test("3 s of a /health that answers while tickets do not: attempts as the backoff times them, not one per check")
        func attemptsFollowTheBackoff() async throws {
            try await ConnectionHarness.with { harness in
                let (client, _) = try await harness.registered("alice")
                let api = NoTickets(client)
                let policy = ConnectionPolicy(backoffBase: .milliseconds(40), backoffCap: .milliseconds(200), pollInterval: .milliseconds(500),
                                              stableConnection: .seconds(30), attemptTimeout: .seconds(15), healthCheckInterval: .milliseconds(10))
                let supervisor = ConnectionSupervisor(api: api, connector: harness.connector(), policy: policy)
                await supervisor.setDelegate(ConnectionProbe(api: client, channels: []))
                await supervisor.start()
                try await Task.sleep(for: .seconds(3))
                await supervisor.stop()
                // The backoff alone: 1 + 16 quick retries of 20 ms, then 40, 80, 160 ms and 200 ms
                // waits: about 30 in 3 s (±25 % jitter), plus the one a check brought forward.
                #expect(api.healthChecks > 50, "the checks ran: \(api.healthChecks)")
                #expect(api.ticketRequests <= 45, "tickets: \(api.ticketRequests), checks: \(api.healthChecks)")
            }
        }
    }
}
