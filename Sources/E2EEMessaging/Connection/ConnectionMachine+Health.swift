/// The machine's answer to a server that is away (docs/spec/sync.md "Connection"): while
/// attempts get no answer at all, a cheap health check (`GET /health`) runs every
/// ``ConnectionPolicy/healthCheckInterval`` between them, and the first that answers starts an
/// attempt at once. The backoff still paces the expensive attempts (ticket and handshake), so a
/// long outage costs one light request a tick and few attempts, and the socket is back within
/// about one interval of the server's return, whatever the backoff has grown to.
///
/// A check brings an attempt forward once; it may again only after a check found the server
/// away (no answer, or a 5xx). An attempt it brought forward that fails too leaves the backoff
/// to time the attempts: a server whose `/health` answers while its tickets or upgrades do not
/// (a load balancer in front of a socket backend that is down) costs the backoff's attempts,
/// not one attempt per check, and a check still brings an attempt forward at most once per
/// backoff step (docs/spec/sync.md §11.2).
///
/// A lost socket starts the checks too, but a check only brings an attempt forward once the
/// server was seen away (an attempt or a check got no answer): a server that is up and drops
/// sockets keeps its backoff, so a flapping socket never turns into a tight loop.
extension ConnectionMachine {
    /// What the machine knows of its health checks.
    struct HealthChecks: Sendable {
        /// Checks run (an attempt got no answer, or a socket was lost, and nothing has answered since).
        var checking = false
        /// The server was seen away in this outage (an attempt or a check got no answer).
        var serverSeenAway = false
        /// Checks timed in this outage (sets the next interval).
        var count = 0
        /// The check whose answer counts.
        var pending: Int?
        /// Checks sent so far (their ids).
        var started = 0
        /// The server answered a check with something other than 200 or a 5xx in this run.
        var unsupported = false
        /// A check may bring the next attempt forward: none has since the outage began or
        /// since a check last found the server away.
        var mayBringForward = true

        /// The outage is over (or the run stopped): no check runs.
        mutating func endOutage() {
            checking = false
            serverSeenAway = false
            count = 0
            pending = nil
            mayBringForward = true
        }
    }

    /// The checks start (unless they run already, are off, or the server showed it has no
    /// health route): `serverAway` when an attempt got no answer, not when a socket was lost.
    mutating func beginHealthChecks(serverAway: Bool, _ effects: inout [ConnectionEffect]) {
        if serverAway { health.serverSeenAway = true }
        guard !health.checking, !health.unsupported, let delay = policy.healthCheckDelay(after: 0) else { return }
        health.checking = true
        health.count = 0
        startTimer(.healthCheck, after: delay, &effects)
    }

    /// The server answered something (an attempt opened or was refused), or the run ended:
    /// no more checks in this outage.
    mutating func endHealthChecks(_ effects: inout [ConnectionEffect]) {
        health.endOutage()
        cancelTimer(.healthCheck, &effects)
    }

    /// Time for a check: one is sent while the machine waits for its next attempt (never during
    /// an attempt), and the next is timed. A check still unanswered from the last tick is
    /// superseded: only the newest check's answer counts.
    mutating func healthCheckTimerFired(_ effects: inout [ConnectionEffect]) {
        guard health.checking else { return }
        health.count += 1
        if phase == .waiting {
            health.started += 1
            health.pending = health.started
            effects.append(.checkHealth(id: health.started))
        }
        if let next = policy.healthCheckDelay(after: health.count) { startTimer(.healthCheck, after: next, &effects) }
    }

    /// Check `id` came back: the server is up (attempt now, if it was seen away; else it never
    /// was, and the backoff goes on without checks), still away (wait for the next check), or
    /// has no health route (the backoff alone goes on).
    mutating func healthChecked(_ id: Int, _ outcome: HealthCheckOutcome, _ effects: inout [ConnectionEffect]) {
        guard health.pending == id else { return }
        health.pending = nil
        guard health.checking else { return }
        switch outcome {
        case .up:
            guard health.serverSeenAway else {
                endHealthChecks(&effects)
                return
            }
            guard phase == .waiting, health.mayBringForward else { return }
            health.mayBringForward = false  // again only once a check has found the server away
            cancelTimer(.retry, &effects)
            attemptNow(&effects)
        case .down:
            health.serverSeenAway = true
            health.mayBringForward = true
        case .unsupported:
            endHealthChecks(&effects)
            health.unsupported = true
        }
    }
}
