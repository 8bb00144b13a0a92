import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension TransportTests {
    /// `GET /health` (docs/spec/server-api.md §14, §A1.4): the cheap check the connection
    /// supervisor makes between reconnect attempts while the server is away.
    @Suite("Health check")
    struct HealthCheckTests {
        @Test("answers without a session; a stopped server is a transport error; it is not counted by the rate limit")
        func healthCheck() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.rateLimit = DevServerConfiguration.RateLimit(requests: 2, window: .seconds(60), retryAfter: .seconds(10))
            let server = try await DevServer.start(configuration: configuration)
            let client = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL), sleep: { _ in })
            for _ in 0..<5 { try await client.checkHealth() }
            // The two requests of the window are still there for the API.
            _ = try await client.register(username: "alice", password: "password123", deviceName: "phone")
            await server.shutdown()
            #expect(await errorKind { try await client.checkHealth() } == "transport")
        }
    }
}
