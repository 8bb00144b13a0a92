/// How a failed POST, PATCH or DELETE is treated.
enum SendFailure {
    /// The server refused it for good (a 4xx other than 401, 408 and 429): retrying the same
    /// bytes cannot help.
    case refused
    /// The session ended or was never there: stop sending until the app logs in again.
    case notAuthenticated
    /// The server answered with an error (5xx, 408, 429): it may or may not have stored it;
    /// counted toward giving up.
    case unknownOutcome
    /// No answer at all (refused connection, dropped, timed out): the server is unreachable.
    /// Not a failure (docs/spec/sync.md "Outbox"): the entry waits, queued, until the server answers.
    case unreachable

    init(_ error: any Error) {
        switch error as? ServerError {
        case .badRequest?, .validation?, .forbidden?, .notFound?, .conflict?:
            self = .refused
        case .unexpectedStatus(let status, _)? where (400..<500).contains(status) && status != 408:
            self = .refused
        case .sessionEnded?, .notLoggedIn?, .unauthenticated?:
            self = .notAuthenticated
        case .transport?:
            self = .unreachable
        default:
            self = .unknownOutcome
        }
    }

    /// Whether `error`, met by the checks before encrypting (the send gate's catch-up and scan,
    /// the member and device reads), means the message waits, queued, rather than fails: no
    /// answer, or a rate limit (a 429 is no refusal; the scan waited out what it could, and the
    /// gate goes on where it stopped, docs/spec/sync.md §12.6).
    static func waitsBeforeEncrypting(_ error: any Error) -> Bool {
        if case ServerError.rateLimited? = error as? ServerError { return true }
        return SendFailure(error) == .unreachable
    }
}
