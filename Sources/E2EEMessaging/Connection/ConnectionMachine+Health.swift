/// The machine's answer to a server that is away (docs/spec/sync.md "Connection"): while
/// attempts get no answer at all, a cheap health check (`GET /health`) runs every
/// ``ConnectionPolicy/healthCheckInterval`` between them, and the first that answers starts an
/// attempt at once. The backoff still paces the expensive attempts (ticket and handshake), so a
/// long outage costs one light request a tick and few attempts, and the socket is back within
/// about one interval of the server's return, whatever the backoff has grown to.
///
/// A lost socket starts the checks too, but a check only brings an attempt forward once the
/// server was seen away (an attempt or a check got no answer): a server that is up and drops
/// sockets keeps its backoff, so a flapping socket never turns into a tight loop.
extension ConnectionMachine {
    /// The checks start (unless they run already, are off, or the server showed it has no
    /// health route): `serverAway` when an attempt got no answer, not when a socket was lost.
    mutating func beginHealthChecks(serverAway: Bool, _ effects: inout [ConnectionEffect]) {
        if serverAway { serverSeenAway = true }
        guard !checkingHealth, !healthCheckUnsupported, let delay = policy.healthCheckDelay(after: 0) else { return }
        checkingHealth = true
        healthChecks = 0
        startTimer(.healthCheck, after: delay, &effects)
    }

    /// The server answered something (an attempt opened or was refused), or the run ended:
    /// no more checks in this outage.
    mutating func endHealthChecks(_ effects: inout [ConnectionEffect]) {
        checkingHealth = false
        serverSeenAway = false
        healthChecks = 0
        pendingHealthCheck = nil
        cancelTimer(.healthCheck, &effects)
    }

    /// Time for a check: one is sent while the machine waits for its next attempt (never during
    /// an attempt), and the next is timed. A check still unanswered from the last tick is
    /// superseded: only the newest check's answer counts.
    mutating func healthCheckTimerFired(_ effects: inout [ConnectionEffect]) {
        guard checkingHealth else { return }
        healthChecks += 1
        if phase == .waiting {
            healthChecksStarted += 1
            pendingHealthCheck = healthChecksStarted
            effects.append(.checkHealth(id: healthChecksStarted))
        }
        if let next = policy.healthCheckDelay(after: healthChecks) { startTimer(.healthCheck, after: next, &effects) }
    }

    /// Check `id` came back: the server is up (attempt now, if it was seen away; else it never
    /// was, and the backoff goes on without checks), still away (wait for the next check), or
    /// has no health route (the backoff alone goes on).
    mutating func healthChecked(_ id: Int, _ outcome: HealthCheckOutcome, _ effects: inout [ConnectionEffect]) {
        guard pendingHealthCheck == id else { return }
        pendingHealthCheck = nil
        guard checkingHealth else { return }
        switch outcome {
        case .up:
            guard serverSeenAway else {
                endHealthChecks(&effects)
                return
            }
            guard phase == .waiting else { return }
            cancelTimer(.retry, &effects)
            attemptNow(&effects)
        case .down:
            serverSeenAway = true
        case .unsupported:
            healthCheckUnsupported = true
            endHealthChecks(&effects)
        }
    }
}
