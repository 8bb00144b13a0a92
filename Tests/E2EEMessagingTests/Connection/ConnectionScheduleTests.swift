@testable import E2EEMessaging
import Testing

/// Issue 21's schedule and cadence, through the pure machine in simulated time: how soon a
/// returning server is reached, how soon and how often REST polls while the socket is down, and
/// what a long outage costs in requests per minute.
@Suite("Connection schedule")
struct ConnectionScheduleTests {
    private let policy = ConnectionPolicy.standard

    @Test("a server back within the first six seconds is reached within 0.625 s, whatever the jitter draws",
          arguments: [0.0, 0.5, 1.0])
    func quickReconnect(draw: Double) {
        for tenths in stride(from: 1, through: 60, by: 1) {
            var sim = OutageSimulator(policy: policy, draw: draw)
            sim.connect()
            let lost = sim.now
            let outage = Duration.milliseconds(100 * tenths)
            sim.loseServer(for: outage, thenRunFor: .seconds(20))
            guard let back = sim.connected(after: lost) else {
                Issue.record("never reconnected after a \(outage) outage")
                continue
            }
            let waited = back - (lost + outage)
            #expect(waited >= .zero && waited <= .milliseconds(625), "outage \(outage): reconnected \(waited) after the server was back")
        }
    }

    @Test("a server back after a longer outage is reached within the backoff step it came back in (at most the 30 s cap)")
    func longerOutagesStayBounded() {
        for seconds in [7, 10, 20, 45, 120, 600] {
            var sim = OutageSimulator(policy: policy, draw: 1)
            sim.connect()
            let lost = sim.now
            sim.loseServer(for: .seconds(seconds), thenRunFor: .seconds(seconds + 60))
            guard let back = sim.connected(after: lost) else {
                Issue.record("never reconnected after \(seconds) s")
                continue
            }
            #expect(back - (lost + .seconds(seconds)) <= .milliseconds(30_000))
        }
    }

    @Test("socket lost: the first REST poll within 5 s, then polls 2, 4, 8, 16, 30, 30 … s apart, stopped when the socket is back",
          arguments: [0.0, 1.0])
    func pollCadence(draw: Double) {
        var sim = OutageSimulator(policy: policy, draw: draw)
        sim.connect()
        let lost = sim.now
        sim.loseServer(for: .seconds(300), thenRunFor: .seconds(400))
        let polls = sim.times(of: .poll)
        guard let first = polls.first else {
            Issue.record("no poll")
            return
        }
        #expect(first - lost <= .seconds(5))
        let gaps = zip(polls.dropFirst(), polls).map { $0 - $1 }
        #expect(Array(gaps.prefix(6)) == [2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(gaps.allSatisfy { $0 <= .seconds(30) })
        let back = sim.connected(after: lost) ?? .seconds(1_000_000)
        #expect(polls.allSatisfy { $0 < back })
        #expect(sim.states.contains { $0.state == .polling && $0.time - lost <= .seconds(5) })
    }

    @Test("a 10-minute outage: requests per minute stay far inside the reference limit of 300/min",
          arguments: [0.0, 0.5, 1.0])
    func tenMinuteOutageCost(draw: Double) {
        var sim = OutageSimulator(policy: policy, draw: draw)
        sim.connect()
        let lost = sim.now
        sim.loseServer(for: .seconds(600), thenRunFor: .seconds(600))
        let attempts = sim.perMinute(.attempt, from: lost, minutes: 10)
        let polls = sim.perMinute(.poll, from: lost, minutes: 10)
        // An attempt is at most two requests (ticket, handshake); a poll of an account with three
        // channels is four (the channel list, one page each). At most a quarter of the limit.
        let requests = zip(attempts, polls).map { 2 * $0 + 4 * $1 }
        #expect(requests.allSatisfy { $0 <= 75 }, "requests per minute: \(requests)")
        #expect(requests.dropFirst().allSatisfy { $0 <= 14 }, "requests per minute: \(requests)")
        #expect(attempts[0] <= 25 && attempts.dropFirst().allSatisfy { $0 <= 3 }, "attempts per minute: \(attempts)")
        #expect(polls.dropFirst().allSatisfy { $0 <= 2 }, "polls per minute: \(polls)")
    }

    @Test("a stopped server (no answer at all) back after 1 s to 10 min is reached within 0.5 s of its return, whatever the jitter",
          arguments: [0.0, 0.5, 1.0])
    func healthChecksReachAReturningServerAtOnce(draw: Double) {
        for seconds in [1, 6, 12, 45, 120, 299] {
            var sim = OutageSimulator(policy: policy, draw: draw, downFailure: .unreachable)
            sim.connect()
            let lost = sim.now
            sim.loseServer(for: .seconds(seconds), thenRunFor: .seconds(seconds + 60))
            guard let back = sim.connected(after: lost) else {
                Issue.record("never reconnected after \(seconds) s")
                continue
            }
            let waited = back - (lost + .seconds(seconds))
            #expect(waited >= .zero && waited <= .milliseconds(500), "outage \(seconds) s: reconnected \(waited) after the server was back")
        }
    }

    @Test("restarts 3 s apart (the socket never becomes stable): each return is still reached within 0.5 s")
    func backToBackRestarts() {
        var sim = OutageSimulator(policy: policy, draw: 0.5, downFailure: .unreachable)
        sim.connect()
        for run in 1...4 {
            let lost = sim.now
            sim.loseServer(for: .seconds(12), thenRunFor: .seconds(15))
            guard let back = sim.connected(after: lost) else {
                Issue.record("restart \(run): never reconnected")
                return
            }
            #expect(back - (lost + .seconds(12)) <= .milliseconds(500), "restart \(run): reconnected \(back - (lost + .seconds(12))) after the server was back")
        }
    }

    @Test("a socket lost while the server is up: the check finds it up and changes nothing (a flapping socket keeps its backoff)")
    func lostSocketWithTheServerUp() {
        var m = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        _ = m.handle(.connectionEnded(id: 1))  // not stable: a failure; attempt 2 at once
        _ = m.handle(.attemptSucceeded(id: 2))
        _ = m.handle(.connectionEnded(id: 2))  // dropped again: waiting 0.5 s for attempt 3
        #expect(m.phase == .waiting && m.health.checking)
        guard let token = m.liveTimers[.healthCheck] else {
            Issue.record("no health check timer")
            return
        }
        let sent = m.handle(.timerFired(ConnectionTimer(kind: .healthCheck, token: token)))
        #expect(sent.contains(.checkHealth(id: 1)))
        let answered = m.handle(.healthChecked(id: 1, .up))
        #expect(!answered.contains { if case .attempt = $0 { true } else { false } }, "the backoff decides, not the check")
        #expect(!m.health.checking)
    }

    @Test("a 10-minute outage with no answer: checks relax to one every 5 s after five minutes, the expensive attempts stay on the backoff schedule, the return is reached within 5 s")
    func tenMinutesWithoutAnswer() {
        var sim = OutageSimulator(policy: policy, draw: 0.5, downFailure: .unreachable)
        sim.connect()
        let lost = sim.now
        sim.loseServer(for: .seconds(600), thenRunFor: .seconds(700))
        let checks = sim.perMinute(.healthCheck, from: lost, minutes: 10)
        #expect(checks.prefix(4).allSatisfy { $0 <= 120 }, "checks per minute: \(checks)")
        #expect(checks.suffix(4).allSatisfy { $0 <= 12 }, "checks per minute: \(checks)")
        let attempts = sim.perMinute(.attempt, from: lost, minutes: 10)
        #expect(attempts[0] <= 25 && attempts.dropFirst().allSatisfy { $0 <= 3 }, "attempts per minute: \(attempts)")
        let back = sim.connected(after: lost).map { $0 - (lost + .seconds(600)) }
        #expect(back.map { $0 <= .seconds(5) } == true, "reconnected \(String(describing: back)) after the server was back")
    }

    @Test("a server without a health route: the checks stop and the backoff alone goes on; an answered refusal stops them too")
    func unsupportedOrAnsweredEndsTheChecks() {
        var m = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = m.handle(.start)
        var effects = m.handle(.attemptFailed(id: 1, .unreachable))  // checks start; the immediate retry is attempt 2
        #expect(effects.contains { if case .startTimer(let t, let d) = $0 { t.kind == .healthCheck && d == .milliseconds(500) } else { false } })
        _ = m.handle(.attemptFailed(id: 2, .unreachable))  // now waiting 0.5 s for attempt 3
        guard let token = m.liveTimers[.healthCheck] else {
            Issue.record("no health check timer")
            return
        }
        effects = m.handle(.timerFired(ConnectionTimer(kind: .healthCheck, token: token)))
        #expect(effects.contains(.checkHealth(id: 1)))
        effects = m.handle(.healthChecked(id: 1, .unsupported))
        #expect(effects.contains(.cancelTimer(.healthCheck)))
        #expect(!m.health.checking)
        // A later unanswered attempt in the same run does not start them again.
        if let retry = m.liveTimers[.retry] { _ = m.handle(.timerFired(ConnectionTimer(kind: .retry, token: retry))) }
        effects = m.handle(.attemptFailed(id: m.currentAttempt ?? -1, .unreachable))
        #expect(!effects.contains { if case .startTimer(let t, _) = $0 { t.kind == .healthCheck } else { false } })

        var answered = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = answered.handle(.start)
        _ = answered.handle(.attemptFailed(id: 1, .unreachable))
        _ = answered.handle(.attemptFailed(id: 2, .unreachable))
        #expect(answered.health.checking)
        if let retry = answered.liveTimers[.retry] { _ = answered.handle(.timerFired(ConnectionTimer(kind: .retry, token: retry))) }
        _ = answered.handle(.attemptFailed(id: answered.currentAttempt ?? -1, .other))
        #expect(!answered.health.checking, "the server answered: no more checks")
    }

    @Test("a check that finds the server up while an attempt is already under way starts no second attempt")
    func upDuringAnAttemptIsIgnored() {
        var m = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = m.handle(.start)
        _ = m.handle(.attemptFailed(id: 1, .unreachable))
        _ = m.handle(.attemptFailed(id: 2, .unreachable))
        guard let token = m.liveTimers[.healthCheck], let retry = m.liveTimers[.retry] else {
            Issue.record("no timers")
            return
        }
        let sent = m.handle(.timerFired(ConnectionTimer(kind: .healthCheck, token: token)))
        #expect(sent.contains(.checkHealth(id: 1)))
        _ = m.handle(.timerFired(ConnectionTimer(kind: .retry, token: retry)))  // attempt 3 starts
        let attempts = m.handle(.healthChecked(id: 1, .up))
        #expect(!attempts.contains { if case .attempt = $0 { true } else { false } })
    }

    @Test("a connection that drops at once is retried on the schedule too: 503s keep probing at the cap")
    func unavailableProbesAtTheCap() {
        var m = ConnectionMachine(policy: policy, random: { 0.5 })
        _ = m.handle(.start)
        let effects = m.handle(.attemptFailed(id: 1, .unavailable))
        #expect(m.polling)
        #expect(effects.contains(.poll))
        #expect(effects.contains { if case .startTimer(let t, let d) = $0 { t.kind == .retry && d == .seconds(30) } else { false } })
    }
}
