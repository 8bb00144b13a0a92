@testable import E2EEMessaging
import Testing

/// What the supervisor makes of a health check's answer (``HealthCheckOutcome``).
@Suite("Health check outcomes")
struct HealthCheckOutcomeTests {
    @Test("200 and 429 are up; no answer and 5xx are down; anything else means no health route")
    func outcomes() async {
        let server = FakeTicketServer()
        let cases: [(ServerError?, HealthCheckOutcome)] = [
            (nil, .up),
            (.rateLimited(retryAfter: 10), .up),
            (.transport("connection refused"), .down),
            (.server(status: 502, body: "bad gateway"), .down),
            (.server(status: 503, body: ""), .down),
            (.notFound(detail: "Not Found"), .unsupported),
            (.unauthenticated(detail: nil), .unsupported),
        ]
        for (answer, expected) in cases {
            server.answerHealth(with: answer)
            #expect(await HealthCheckOutcome(checking: server) == expected, "\(String(describing: answer))")
        }
    }

    @Test("an API without a health check reports unsupported")
    func defaultIsUnsupported() async {
        #expect(await HealthCheckOutcome(checking: FakeTicketServer()) == .unsupported)
    }
}
