@testable import E2EEMessaging
import Testing

/// Steps and readers shared by the machine suites.
protocol MachineTesting {}

extension MachineTesting {
    /// The spec's policy with a distinct follow-up, and without the echo check, the
    /// membership watch and the socket's confirmation read (their own suites turn them on), so
    /// that the REST light check runs.
    static var policy: ConnectionPolicy {
        ConnectionPolicy(echoCheckInterval: nil, membershipWatchInterval: nil, socketConfirmationDelay: nil,
                         followUpCatchUp: .milliseconds(700))
    }

    func machine(_ policy: ConnectionPolicy = Self.policy) -> ConnectionMachine {
        ConnectionMachine(policy: policy, random: { 0.5 })
    }

    /// The states published by `effects`.
    func states(_ effects: [ConnectionEffect]) -> [ConnectionState] {
        effects.compactMap { if case .publish(let state) = $0 { return state } else { return nil } }
    }

    /// `effects` without the attempt deadline's timer starts and cancels (checked on their own).
    func core(_ effects: [ConnectionEffect]) -> [ConnectionEffect] {
        effects.filter {
            switch $0 {
            case .startTimer(let timer, _): return timer.kind != .attemptDeadline
            case .cancelTimer(let kind): return kind != .attemptDeadline
            default: return true
            }
        }
    }

    /// The timers started by `effects`, with their delays.
    func timers(_ effects: [ConnectionEffect]) -> [(ConnectionTimer, Duration)] {
        effects.compactMap { if case .startTimer(let timer, let delay) = $0 { return (timer, delay) } else { return nil } }
    }

    func timer(_ kind: ConnectionTimer.Kind, in effects: [ConnectionEffect]) -> (ConnectionTimer, Duration)? {
        timers(effects).first { $0.0.kind == kind }
    }

    /// The attempt started by `effects`, if any.
    func attempt(_ effects: [ConnectionEffect]) -> Int? {
        effects.lazy.compactMap { if case .attempt(let id) = $0 { return id } else { return nil } }.first
    }

    /// Fails the attempt under way and, if a retry timer was started, fires it; returns every
    /// effect and the retry delay (nil when the retry was immediate).
    func failAndRetry(_ m: inout ConnectionMachine, with failure: AttemptFailure = .other) -> (effects: [ConnectionEffect], wait: Duration?) {
        guard let id = m.currentAttempt else { return ([], nil) }
        var effects = m.handle(.attemptFailed(id: id, failure))
        guard let (retry, wait) = timer(.retry, in: effects) else { return (effects, nil) }
        effects += m.handle(.timerFired(retry))
        return (effects, wait)
    }
}
