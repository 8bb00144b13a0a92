/// The echo check (docs/spec/sync.md §11.6): an open socket that has delivered no event for
/// ``ConnectionPolicy/echoCheckInterval`` gets one frame that the server publishes back to this
/// user's sockets as an event. Any event arriving within ``ConnectionPolicy/echoTimeout`` proves
/// the server's fan-out still reaches the socket; none means the socket is deaf (a Redis restart
/// on the reference server, docs/spec/server-api.md §12), so it is closed and reopened — which
/// heals the fan-out — and the new socket's catch-up reads what was missed.
///
/// A server that never echoes the check would make every quiet socket look deaf. So until one
/// check has been answered, a check that goes unanswered reconnects once (the socket may really
/// be deaf), and a second one in a row, on the new socket, means this server does not echo:
/// the checks stop for the supervisor's lifetime and the light REST check
/// (``ConnectionPolicy/deafCheckInterval``) watches the socket instead.
extension ConnectionMachine {
    /// What the machine knows of the echo checks on this server.
    struct EchoChecks: Sendable, Equatable {
        /// A check was answered by its own echo at least once: this server echoes it.
        var answered = false
        /// The last socket's check went unanswered while none had ever been answered.
        var lastUnanswered = false
        /// Two checks in a row went unanswered, none ever answered: this server does not echo
        /// them, and they stop.
        var unsupported = false
    }

    /// Whether echo checks watch the open socket (on in the policy, and not found unsupported).
    var echoChecksWatch: Bool { policy.echoCheckInterval != nil && !echoChecks.unsupported }

    /// The socket just opened: the echo check's silence timer starts (or, when the echo check
    /// cannot watch the socket, the light REST check's), and the membership watch's.
    mutating func startWatchingSocket(_ effects: inout [ConnectionEffect]) {
        if echoChecksWatch {
            armEchoCheck(&effects)
        } else if let interval = policy.deafCheckInterval {
            startTimer(.deafCheck, after: interval, &effects)
        }
        if let interval = policy.membershipWatchInterval { startTimer(.membershipWatch, after: interval, &effects) }
    }

    /// The socket of attempt `id` delivered an event: the check waiting for an echo (if any) is
    /// answered, and the silence timer starts again.
    mutating func socketHeard(_ id: Int, checkEcho: Bool, _ effects: inout [ConnectionEffect]) {
        guard phase == .connected, currentAttempt == id else { return }
        if checkEcho {
            echoChecks.answered = true
            echoChecks.lastUnanswered = false
        }
        guard echoChecksWatch else { return }
        cancelTimer(.echoCheckDeadline, &effects)
        armEchoCheck(&effects)
    }

    /// The socket has been quiet for the whole interval: send the check; an event is due
    /// within ``ConnectionPolicy/echoTimeout``.
    mutating func echoCheckFired(_ effects: inout [ConnectionEffect]) {
        guard phase == .connected, let id = currentAttempt, echoChecksWatch else { return }
        effects.append(.sendEchoCheck(id: id))
        startTimer(.echoCheckDeadline, after: policy.echoTimeout, &effects)
    }

    /// No event came back after the check: the socket is deaf — unless no check has ever been
    /// answered and the previous socket's went unanswered too, which means this server does not
    /// echo checks: they stop, and the light REST check takes over.
    mutating func echoCheckUnanswered(_ effects: inout [ConnectionEffect]) {
        guard phase == .connected, echoChecksWatch else { return }
        if !echoChecks.answered {
            guard !echoChecks.lastUnanswered else {
                echoChecks.unsupported = true
                cancelTimer(.echoCheck, &effects)
                if let interval = policy.deafCheckInterval { startTimer(.deafCheck, after: interval, &effects) }
                return
            }
            echoChecks.lastUnanswered = true
        }
        socketIsDeaf(&effects)
    }

    /// Time for the membership watch: ask the delegate, and again one interval later.
    mutating func membershipWatchFired(_ effects: inout [ConnectionEffect]) {
        guard phase == .connected else { return }
        effects.append(.watchMembership)
        if let interval = policy.membershipWatchInterval { startTimer(.membershipWatch, after: interval, &effects) }
    }

    private mutating func armEchoCheck(_ effects: inout [ConnectionEffect]) {
        guard let delay = policy.echoCheckDelay(unit: random()) else { return }
        startTimer(.echoCheck, after: delay, &effects)
    }
}
