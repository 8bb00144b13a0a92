/// Every way a server call can fail, typed. Never carries a token: bodies are truncated
/// server texts, which the server builds without secrets.
public enum ServerError: Error, Sendable, Equatable {
    /// 401, or the older 403 "Not authenticated": authenticate again.
    case unauthenticated(detail: String?)
    /// 403: closed registration, banned, not a member, not the owner.
    case forbidden(detail: String?)
    /// 404: no such resource (or not yet committed: retry reads of fresh rows).
    case notFound(detail: String?)
    /// 409: username taken, already a member.
    case conflict(detail: String?)
    /// 400: refused request (for instance a member added to a DM).
    case badRequest(detail: String?)
    /// 422: validation failed; one entry per failing field.
    case validation([ValidationIssue])
    /// 429: rate limited; `retryAfter` seconds from `Retry-After` (nil when absent).
    case rateLimited(retryAfter: Int?)
    /// 5xx: the body is often plain text, kept truncated.
    case server(status: Int, body: String)
    /// Any other status.
    case unexpectedStatus(Int, body: String)
    /// The request never got an answer (connect refused, connection dropped, timeout).
    case transport(String)
    /// A 2xx body did not decode as the expected model.
    case decoding(String)
    /// The answer's body is over the client's cap of `limit` bytes: read less at a time (a page
    /// of messages with a smaller `limit`). The server answered; the request is not repeated.
    case responseTooLarge(limit: Int)
    /// The session ended: refresh was refused, tokens were wiped (keys are kept); log in again.
    case sessionEnded
    /// No tokens are held: register or log in first.
    case notLoggedIn

    /// Whether this asks the caller to authenticate again.
    public var isUnauthenticated: Bool {
        if case .unauthenticated = self { return true }
        return false
    }

    /// Maps an HTTP answer that is not 2xx to its typed error (`retryAfter` from the header).
    public static func from(status: Int, body: [UInt8], retryAfter: Int?) -> ServerError {
        let body = ErrorBody(bytes: body)
        switch status {
        case 401: return .unauthenticated(detail: body.detail)
        case 403 where body.detail == "Not authenticated": return .unauthenticated(detail: body.detail)
        case 403: return .forbidden(detail: body.detail)
        case 404: return .notFound(detail: body.detail)
        case 409: return .conflict(detail: body.detail)
        case 400: return .badRequest(detail: body.detail)
        case 422: return .validation(body.issues)
        case 429: return .rateLimited(retryAfter: retryAfter)
        case 500...599: return .server(status: status, body: body.text)
        default: return .unexpectedStatus(status, body: body.text)
        }
    }
}
