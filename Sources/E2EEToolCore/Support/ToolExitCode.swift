/// Every exit status of `e2ee-tool`, one meaning each (docs/e2ee-tool.md lists them, and so
/// does `e2ee-tool exit-codes`). 7 is not used (it meant "not available yet" while `listen`,
/// `history` and `keys replenish --watch` were missing) and is never given another meaning.
public enum ToolExitCode: Int32, CaseIterable, Sendable, Codable {
    /// The command did what it was asked.
    case success = 0
    /// Anything not covered below (the message says what).
    case failure = 1
    /// Bad arguments, a missing secret without a terminal, an ambiguous store (the argument
    /// parser's own usage errors map here too).
    case usage = 2
    /// The store passphrase does not open the store.
    case wrongPassphrase = 3
    /// The server could not be reached (refused, dropped, timed out).
    case serverUnreachable = 4
    /// Authentication failed or the session ended: log in again.
    case authentication = 5
    /// No such store, account, channel, user or device.
    case notFound = 6
    /// The server refused the request (conflict, validation, rate limit, 5xx…).
    case serverRefused = 8
    /// `vectors verify`: a vector disagreed with the implementation or a file was unreadable.
    case verificationFailed = 9
    /// `send`: the message was not sent (it stays in the outbox as failed).
    case notSent = 10
    /// `listen --count N --timeout S`: the time ran out before N messages arrived.
    case timedOut = 11
    /// `send`: every recipient device of the send is held by the recipient policy; nothing was
    /// sent (it stays in the outbox as failed).
    case recipientsHeld = 12
    /// `send`: the server could not be reached; the message is queued in the outbox and goes
    /// out with a later `send`, `history` or `listen` on the same store (docs/spec/sync.md "Outbox").
    case queued = 13
    /// `link start|accept`: the link was cancelled (a wrong code, a refusal, a second request,
    /// ten minutes without progress) or its transfer failed; start again on both devices. Also
    /// `link accept` and `transfer retry` when the primary's store is older than its primary file
    /// (nothing sent until `user-key confirm-trust`).
    case linkFailed = 14
    /// `user-key …`: only the primary device of the user key can do this, and this device is
    /// not it.
    case notPrimary = 15
    /// `send`: nothing went to a user whose user key is unresolved — conflicted, without a
    /// verified device, or a key change awaiting acceptance (`user-key show`); in a DM nothing
    /// was posted and the message stays in the outbox as failed.
    case userKeyUnresolved = 16
    /// `send` and every other sending command: this device is a login of an account with a user
    /// key and is not linked yet; nothing was sent (`link start`).
    case linkingRequired = 17

    /// A short stable name (used in JSON output).
    public var name: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage"
        case .wrongPassphrase: "wrong_passphrase"
        case .serverUnreachable: "server_unreachable"
        case .authentication: "authentication"
        case .notFound: "not_found"
        case .serverRefused: "server_refused"
        case .verificationFailed: "verification_failed"
        case .notSent: "not_sent"
        case .timedOut: "timed_out"
        case .recipientsHeld: "recipients_held"
        case .queued: "queued"
        case .linkFailed: "link_failed"
        case .notPrimary: "not_primary"
        case .userKeyUnresolved: "user_key_unresolved"
        case .linkingRequired: "linking_required"
        }
    }

    /// What the status means, one line.
    public var meaning: String {
        switch self {
        case .success: "the command did what it was asked"
        case .failure: "any other failure (the message says what)"
        case .usage: "bad arguments, a secret missing without a terminal, or an ambiguous store"
        case .wrongPassphrase: "the store passphrase does not open the store"
        case .serverUnreachable: "the server could not be reached"
        case .authentication: "authentication failed or the session ended: log in again"
        case .notFound: "no such store, account, channel, user or device"
        case .serverRefused: "the server refused the request"
        case .verificationFailed: "vectors verify: a vector failed or a file was unreadable"
        case .notSent: "send: the message was not sent (it stays in the outbox as failed)"
        case .timedOut: "listen --count: the timeout passed before that many messages arrived"
        case .recipientsHeld: "send: every recipient device is held (approve one with devices approve); nothing was sent"
        case .queued: "send: the message is queued (server unreachable), it will go out later"
        case .linkFailed: "link: the link was cancelled or its transfer failed; start again on both devices"
        case .notPrimary: "user-key: only the primary device of the user key can do this"
        case .userKeyUnresolved: "send: a user's key is unresolved (conflicted, no verified device, change pending): see user-key show"
        case .linkingRequired: "send: this device must be linked to the primary first (link start)"
        }
    }

    /// The table printed by `e2ee-tool exit-codes`.
    public static var table: String {
        allCases.map { code in
            let number = String(code.rawValue)
            return String(repeating: " ", count: 3 - number.count) + number + "  " + code.name
                + String(repeating: " ", count: max(2, 21 - code.name.count)) + code.meaning
        }.joined(separator: "\n")
    }
}
