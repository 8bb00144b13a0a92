/// How a failed POST, PATCH or DELETE is treated.
enum SendFailure {
    /// The server refused it for good (4xx): retrying the same bytes cannot help.
    case refused
    /// The session ended or was never there: stop sending until the app logs in again.
    case notAuthenticated
    /// No answer or a server error: the server may or may not have stored it.
    case unknownOutcome

    init(_ error: any Error) {
        switch error as? ServerError {
        case .badRequest?, .validation?, .forbidden?, .notFound?, .conflict?:
            self = .refused
        case .unexpectedStatus(let status, _)? where (400..<500).contains(status):
            self = .refused
        case .sessionEnded?, .notLoggedIn?, .unauthenticated?:
            self = .notAuthenticated
        default:
            self = .unknownOutcome
        }
    }
}
