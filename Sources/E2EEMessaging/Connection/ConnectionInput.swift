/// Everything that can happen to the connection supervisor, as the pure ``ConnectionMachine``
/// sees it: the app's calls, timers firing, and the outcomes of I/O the supervisor ran.
enum ConnectionInput: Sendable, Equatable {
    /// `start()`.
    case start
    /// `stop()`.
    case stop
    /// `enterBackground()`.
    case enterBackground
    /// `enterForeground()`.
    case enterForeground
    /// `networkChanged()`.
    case networkChanged
    /// `subscribe(channelID:)`.
    case subscribe(channelID: ChannelID)
    /// A timer the machine started has fired.
    case timerFired(ConnectionTimer)
    /// Attempt `id` fetched a ticket and opened a socket.
    case attemptSucceeded(id: Int)
    /// Attempt `id` failed.
    case attemptFailed(id: Int, AttemptFailure)
    /// The socket opened by attempt `id` ended (its updates finished).
    case connectionEnded(id: Int)
    /// A delegate's catch-up or poll reported that the session ended.
    case sessionEnded
    /// A message of ours was posted (201): its echo is due on the open socket.
    case echoExpected(messageID: MessageID)
    /// The open socket delivered this message (an echo, if one was expected).
    case echoSeen(messageID: MessageID)
    /// The delegate's check found a message the socket of attempt `id` should have delivered.
    case socketDeaf(id: Int)
    /// The socket of attempt `id` delivered an event (`checkEcho`: the echo of our own echo
    /// check), so the server's fan-out reaches it.
    case socketHeard(id: Int, checkEcho: Bool)
    /// Health check `id` came back.
    case healthChecked(id: Int, HealthCheckOutcome)
}

/// What a health check (`GET /health`) found.
enum HealthCheckOutcome: Sendable, Equatable {
    /// It answered 200: the server is back.
    case up
    /// No answer, or a 5xx (a proxy or a server still starting): still away.
    case down
    /// Any other answer (no such route): the server cannot be checked this way; the backoff
    /// alone paces the attempts for the rest of the run.
    case unsupported
}

/// Why an attempt (ticket, then handshake) failed, reduced to what changes the machine's course.
enum AttemptFailure: Error, Sendable, Equatable {
    /// The session ended (refresh refused): stop in `.failed` and tell the delegate.
    case sessionEnded
    /// No tokens are held: stop in `.failed`.
    case notLoggedIn
    /// 429: wait as ``ConnectionPolicy/rateLimitDelay(retryAfter:refusals:)`` says.
    case rateLimited(retryAfter: Int?)
    /// 503: fall back to polling at once.
    case unavailable
    /// No answer at all (refused or broken connection, timeout): back off, and check the
    /// server's health between attempts (``ConnectionPolicy/healthCheckInterval``).
    case unreachable
    /// Anything else (refused handshake, other statuses): back off and retry.
    case other

    /// Classifies an error thrown by `webSocketTicket()` or `connect(ticket:)`.
    init(_ error: any Error) {
        switch error as? ServerError {
        case .sessionEnded?: self = .sessionEnded
        case .notLoggedIn?: self = .notLoggedIn
        case .rateLimited(let retryAfter)?: self = .rateLimited(retryAfter: retryAfter)
        case .server(status: 503, _)?: self = .unavailable
        case .transport?: self = .unreachable
        default: self = .other
        }
    }
}

extension HealthCheckOutcome {
    /// Runs one health check through `api`: 200 (or a 429, which only a running server sends)
    /// is `.up`; no answer or a 5xx is `.down`; anything else is `.unsupported`.
    init(checking api: any ChatServerAPI) async {
        do {
            try await api.checkHealth()
            self = .up
        } catch ServerError.transport, ServerError.server {
            self = .down
        } catch ServerError.rateLimited {
            self = .up
        } catch is CancellationError {
            self = .down
        } catch {
            self = .unsupported
        }
    }
}
