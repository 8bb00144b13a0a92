@testable import E2EEMessaging
import Testing

/// Issue 42 item 7, through the pure machine in simulated time: a `/health` that answers while
/// tickets or upgrades get no answer (a load balancer in front of a socket backend that is down)
/// must not turn every health check into an attempt. A check brings an attempt forward at most
/// once, and again only after a check found the server away (docs/spec/sync.md §11.2), so the outage costs what §11.2 budgets.
@Suite("Health checks within the request budget")
struct HealthCheckBudgetTests {
    private let policy = ConnectionPolicy.standard

    @Test("health answers, attempts get no answer: at most 75 requests in the first minute and 14 in each later one, whatever the jitter",
          arguments: [0.0, 0.5, 1.0])
    func healthUpWhileAttemptsGetNoAnswer(draw: Double) {
        var sim = OutageSimulator(policy: policy, draw: draw, downFailure: .unreachable, healthUpWhileDown: true)
        sim.connect()
        let lost = sim.now
        sim.loseServer(for: .seconds(600), thenRunFor: .seconds(600))
        let attempts = sim.perMinute(.attempt, from: lost, minutes: 10)
        let polls = sim.perMinute(.poll, from: lost, minutes: 10)
        // As in ConnectionScheduleTests: an attempt is two requests (ticket, handshake), a poll
        // of an account with three channels four. Health checks are counted apart (no rate limit).
        let requests = zip(attempts, polls).map { 2 * $0 + 4 * $1 }
        #expect(requests[0] <= 75, "requests per minute: \(requests), attempts \(attempts)")
        #expect(requests.dropFirst().allSatisfy { $0 <= 14 }, "requests per minute: \(requests), attempts \(attempts)")
        let checks = sim.perMinute(.healthCheck, from: lost, minutes: 10)
        #expect(checks.allSatisfy { $0 <= 120 }, "checks per minute: \(checks)")
    }

    @Test("a check that finds the server up brings one attempt forward; when that attempt fails too, the next waits its whole step, until a check finds the server away")
    func oneAttemptBroughtForwardPerStep() {
        var m = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        guard let stable = m.liveTimers[.stable] else {
            Issue.record("no stable timer")
            return
        }
        _ = m.handle(.timerFired(ConnectionTimer(kind: .stable, token: stable)))
        _ = m.handle(.connectionEnded(id: 1))  // reconnect 1 at once
        var attempt = 2
        // Past the quick retries: 17 failures without an answer put the machine on the 1 s step.
        for _ in 0..<18 {
            _ = m.handle(.attemptFailed(id: attempt, .unreachable))
            guard let retry = m.liveTimers[.retry] else { break }
            _ = m.handle(.timerFired(ConnectionTimer(kind: .retry, token: retry)))
            attempt += 1
        }
        _ = m.handle(.attemptFailed(id: attempt, .unreachable))
        #expect(m.phase == .waiting)
        let forwarded = checkUp(&m)
        #expect(forwarded, "the first check of the step brings its attempt forward")
        attempt += 1
        _ = m.handle(.attemptFailed(id: attempt, .unreachable))
        #expect(m.phase == .waiting)
        let again = checkUp(&m)
        #expect(!again, "the step after a brought-forward attempt that failed waits its whole backoff")
        #expect(m.liveTimers[.retry] != nil)
        #expect(checkAway(&m))
        let afterAway = checkUp(&m)
        #expect(afterAway, "a check that found the server away lets the next one that answers bring an attempt forward")
    }

    /// Fires the health check timer and answers its check `.down`; whether a check was sent.
    private func checkAway(_ m: inout ConnectionMachine) -> Bool {
        guard let token = m.liveTimers[.healthCheck] else { return false }
        let sent = m.handle(.timerFired(ConnectionTimer(kind: .healthCheck, token: token)))
        guard let id = sent.compactMap({ if case .checkHealth(let id) = $0 { id } else { nil } }).first else { return false }
        _ = m.handle(.healthChecked(id: id, .down))
        return true
    }

    /// Fires the health check timer and answers its check `.up`; whether an attempt started.
    private func checkUp(_ m: inout ConnectionMachine) -> Bool {
        guard let token = m.liveTimers[.healthCheck] else { return false }
        let sent = m.handle(.timerFired(ConnectionTimer(kind: .healthCheck, token: token)))
        guard let id = sent.compactMap({ if case .checkHealth(let id) = $0 { id } else { nil } }).first else { return false }
        return m.handle(.healthChecked(id: id, .up)).contains { if case .attempt = $0 { true } else { false } }
    }
}
