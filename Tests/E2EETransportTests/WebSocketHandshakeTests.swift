import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    /// A refused WebSocket upgrade is typed by its HTTP status.
    @Suite("WebSocket handshake refusals")
    struct WebSocketHandshakeTests {
        private func connector(_ harness: TransportHarness) -> WebSocketRealtimeConnector {
            WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL)
        }

        @Test func badTicketIsForbiddenWithTheServersEmptyBody() async throws {
            try await TransportHarness.with { harness in
                await expectServerError(.forbidden(detail: nil)) {
                    try await connector(harness).connect(ticket: "not-a-ticket")
                }
            }
        }

        @Test func refusedWith429CarriesRetryAfter() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let ticket = try await alice.webSocketTicket()
                await harness.server.faults.refuseUpgrades(status: 429, retryAfter: 7)
                await expectServerError(.rateLimited(retryAfter: 7)) { try await connector(harness).connect(ticket: ticket) }
                await harness.server.faults.refuseUpgrades(status: 429, retryAfter: 86_400)
                await expectServerError(.rateLimited(retryAfter: 300)) { try await connector(harness).connect(ticket: ticket) }
                await harness.server.faults.refuseUpgrades(status: 429)
                await expectServerError(.rateLimited(retryAfter: nil)) { try await connector(harness).connect(ticket: ticket) }
                // A refused handshake does not spend the ticket (on the dev server).
                await harness.server.faults.refuseUpgrades(status: nil)
                let connection = try await connector(harness).connect(ticket: ticket)
                await connection.close()
            }
        }

        @Test func theRateLimiterRefusesHandshakesWith429() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.rateLimit = .init(requests: 2, window: .seconds(600), retryAfter: .seconds(10))
            try await TransportHarness.with(configuration) { harness in
                let (alice, _) = try await harness.registered("alice")     // 1
                let ticket = try await alice.webSocketTicket()              // 2
                await expectServerError(.rateLimited(retryAfter: 10)) { try await connector(harness).connect(ticket: ticket) }
            }
        }

        @Test(arguments: [503, 500, 502])
        func serverErrorsAreServerCases(status: Int) async throws {
            try await TransportHarness.with { harness in
                await harness.server.faults.refuseUpgrades(status: status)
                let (alice, _) = try await harness.registered("alice")
                await expectServerError(.server(status: status, body: #"{"detail":"WebSocket upgrades refused"}"#)) {
                    try await connector(harness).connect(ticket: try await alice.webSocketTicket())
                }
            }
        }

        @Test func otherStatusesAreTypedToo() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let ticket = try await alice.webSocketTicket()
                await harness.server.faults.refuseUpgrades(status: 401)
                await expectServerError(.unauthenticated(detail: "WebSocket upgrades refused")) { try await connector(harness).connect(ticket: ticket) }
                await harness.server.faults.refuseUpgrades(status: 404)
                await expectServerError(.notFound(detail: "WebSocket upgrades refused")) { try await connector(harness).connect(ticket: ticket) }
                await harness.server.faults.refuseUpgrades(status: 418)
                await expectServerError(.unexpectedStatus(418, body: #"{"detail":"WebSocket upgrades refused"}"#)) {
                    try await connector(harness).connect(ticket: ticket)
                }
            }
        }

        @Test func noServerIsATransportError() async throws {
            // A port nothing listens on (the server was shut down).
            let server = try await DevServer.start(configuration: .testing())
            let url = server.webSocketURL
            await server.shutdown()
            // (The old port may still accept and never answer: the handshake timeout covers it.)
            var options = RealtimeConnectionOptions.standard
            options.handshakeTimeout = .seconds(2)
            let kind = await errorKind { try await WebSocketRealtimeConnector(webSocketURL: url, options: options).connect(ticket: "t") }
            #expect(kind == "transport")
            let invalid = await errorKind { try await WebSocketRealtimeConnector(webSocketURL: "http://example.com/ws").connect(ticket: "t") }
            #expect(invalid == "transport")
        }
    }
}
