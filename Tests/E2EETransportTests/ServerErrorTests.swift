import E2EEMessaging
import Testing

@Suite("ServerError mapping")
struct ServerErrorTests {
    private func map(_ status: Int, _ body: String, retryAfter: Int? = nil) -> ServerError {
        ServerError.from(status: status, body: Array(body.utf8), retryAfter: retryAfter)
    }

    @Test func everyDocumentedStatusHasItsCase() {
        #expect(map(401, #"{"detail":"Invalid credentials"}"#) == .unauthenticated(detail: "Invalid credentials"))
        #expect(map(403, #"{"detail":"Not authenticated"}"#) == .unauthenticated(detail: "Not authenticated"))
        #expect(map(403, #"{"detail":"Not a member"}"#) == .forbidden(detail: "Not a member"))
        #expect(map(404, #"{"detail":"Not found"}"#) == .notFound(detail: "Not found"))
        #expect(map(409, #"{"detail":"Username taken"}"#) == .conflict(detail: "Username taken"))
        #expect(map(400, #"{"detail":"DM"}"#) == .badRequest(detail: "DM"))
        #expect(map(429, #"{"detail":"Rate limit exceeded"}"#, retryAfter: 10) == .rateLimited(retryAfter: 10))
        #expect(map(502, "Bad Gateway") == .server(status: 502, body: "Bad Gateway"))
        #expect(map(418, "teapot") == .unexpectedStatus(418, body: "teapot"))
    }

    @Test func validationDetailsAreKept() {
        let body = #"{"detail":[{"loc":["body","username"],"msg":"too short","type":"string_too_short"},{"loc":["query","limit",0],"msg":"bad"}]}"#
        #expect(map(422, body) == .validation([
            ValidationIssue(location: ["body", "username"], message: "too short", type: "string_too_short"),
            ValidationIssue(location: ["query", "limit", "0"], message: "bad", type: nil),
        ]))
    }

    @Test func plainTextAndGarbageBodiesNeverBreakMapping() {
        #expect(map(500, "Internal Server Error") == .server(status: 500, body: "Internal Server Error"))
        #expect(map(401, "\u{00}\u{ff}not json") == .unauthenticated(detail: nil))
        #expect(map(422, "[1,2]") == .validation([]))
        let long = String(repeating: "x", count: 10_000)
        if case .server(_, let body) = map(500, long) { #expect(body.count == 512) } else { Issue.record("not a server error") }
    }

    @Test func tokenResponseDescriptionHidesTokens() {
        let tokens = TokenResponse(accessToken: "access-secret-123", refreshToken: "refresh-secret-456", userID: "u", deviceID: "d")
        for text in [tokens.description, tokens.debugDescription, String(describing: tokens), "\(tokens)"] {
            #expect(!text.contains("secret"))
        }
    }
}
