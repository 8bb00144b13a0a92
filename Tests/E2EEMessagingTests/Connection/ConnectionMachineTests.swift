@testable import E2EEMessaging
import Testing

/// The pure state machine: inputs in, state and effects out, no clocks or sockets.
@Suite("Connection machine")
struct ConnectionMachineTests: MachineTesting {
    @Test("start: connecting, one attempt")
    func startsConnecting() {
        var m = machine()
        #expect(core(m.handle(.start)) == [.publish(.connecting), .attempt(id: 1)])
        #expect(m.handle(.start) == [])
    }

    @Test("open: connected, channels handed over, follow-up catch-up and stability timers")
    func opens() {
        var m = machine()
        _ = m.handle(.subscribe(channelID: "c1"))
        _ = m.handle(.start)
        let effects = m.handle(.attemptSucceeded(id: 1))
        #expect(states(effects) == [.connected])
        #expect(effects.contains(.opened(id: 1, channels: ["c1"])))
        #expect(timer(.followUp, in: effects)?.1 == .milliseconds(700))
        #expect(timer(.stable, in: effects)?.1 == .seconds(10))
        let followUp = timer(.followUp, in: effects)?.0
        #expect(followUp.map { m.handle(.timerFired($0)) } == [.catchUp(.connectedFollowUp)])
    }

    @Test("five failed attempts: reconnecting 1…4 with backoff 0, 0.5, 0.5, 0.5 s, then polling while the quick retries go on")
    func pollingAfterFiveFailures() {
        var m = machine()
        _ = m.handle(.start)
        var published: [ConnectionState] = [.connecting]
        var waits: [Duration?] = []
        for _ in 1...4 {
            let (effects, wait) = failAndRetry(&m)
            published += states(effects)
            waits.append(wait)
        }
        #expect(published == [.connecting, .reconnecting(attempt: 1), .reconnecting(attempt: 2), .reconnecting(attempt: 3), .reconnecting(attempt: 4)])
        #expect(waits == [nil, .milliseconds(500), .milliseconds(500), .milliseconds(500)])

        let id = m.currentAttempt ?? -1
        let fifth = m.handle(.attemptFailed(id: id, .other))
        #expect(states(fifth) == [.polling])
        #expect(fifth.contains(.poll))
        #expect(timer(.poll, in: fifth)?.1 == .seconds(2))
        #expect(timer(.retry, in: fifth)?.1 == .milliseconds(500))
        #expect(m.polling)
    }

    @Test("polling: the poll timer re-arms itself and a probe that opens cancels it")
    func pollTimerLifecycle() {
        var m = machine()
        _ = m.handle(.start)
        var effects: [ConnectionEffect] = []
        for _ in 1...4 { _ = failAndRetry(&m) }
        effects = m.handle(.attemptFailed(id: m.currentAttempt ?? -1, .other))
        guard let (poll, _) = timer(.poll, in: effects), let (probe, _) = timer(.retry, in: effects) else {
            Issue.record("no poll or probe timer")
            return
        }
        let tick = m.handle(.timerFired(poll))
        #expect(tick.first == .poll)
        #expect(timer(.poll, in: tick)?.1 == .seconds(4))

        // A probe fails: still polling, no state change, the backoff schedule goes on.
        _ = m.handle(.timerFired(probe))
        let failedProbe = m.handle(.attemptFailed(id: m.currentAttempt ?? -1, .other))
        #expect(states(failedProbe) == [])
        #expect(timer(.retry, in: failedProbe)?.1 == .milliseconds(500))

        // The next probe opens: connected, poll timer cancelled, no more polls.
        guard let (nextProbe, _) = timer(.retry, in: failedProbe) else { return }
        _ = m.handle(.timerFired(nextProbe))
        let opened = m.handle(.attemptSucceeded(id: m.currentAttempt ?? -1))
        #expect(states(opened) == [.connected])
        #expect(opened.contains(.cancelTimer(.poll)))
        #expect(!m.polling)
        guard let (staleTick, _) = timer(.poll, in: tick) else { return }
        #expect(m.handle(.timerFired(staleTick)) == [])
    }

    @Test("503: polling at once")
    func unavailablePollsAtOnce() {
        var m = machine()
        _ = m.handle(.start)
        let effects = m.handle(.attemptFailed(id: 1, .unavailable))
        #expect(states(effects) == [.polling])
        #expect(effects.contains(.poll))
        #expect(timer(.retry, in: effects)?.1 == .seconds(30))
    }

    @Test("429: waits Retry-After, then longer while refused, back to backoff after")
    func rateLimited() {
        var m = machine()
        _ = m.handle(.start)
        let first = failAndRetry(&m, with: .rateLimited(retryAfter: 10))
        #expect(first.wait == .seconds(10))
        #expect(states(first.effects) == [.reconnecting(attempt: 1)])
        let second = failAndRetry(&m, with: .rateLimited(retryAfter: 10))
        #expect(second.wait == .seconds(20))
        let third = failAndRetry(&m, with: .rateLimited(retryAfter: 10))
        #expect(third.wait == .seconds(40))
        let fourth = failAndRetry(&m, with: .other)
        #expect(fourth.wait == .milliseconds(500))
        #expect(m.rateLimitRefusals == 0)
    }

    @Test("429 while polling waits max(probe, Retry-After)")
    func rateLimitedProbe() {
        var m = machine()
        _ = m.handle(.start)
        let entered = m.handle(.attemptFailed(id: 1, .unavailable))
        guard let (probe, _) = timer(.retry, in: entered) else {
            Issue.record("no probe timer")
            return
        }
        _ = m.handle(.timerFired(probe))
        let refused = m.handle(.attemptFailed(id: m.currentAttempt ?? -1, .rateLimited(retryAfter: 45)))
        #expect(timer(.retry, in: refused)?.1 == .seconds(45))
        #expect(states(refused) == [])
    }

    @Test("an attempt that never answers fails at its deadline; its late socket is closed")
    func attemptDeadline() {
        var m = machine()
        let started = m.handle(.start)
        guard let (deadline, delay) = timer(.attemptDeadline, in: started) else {
            Issue.record("no attempt deadline")
            return
        }
        #expect(delay == .seconds(30))
        let expired = m.handle(.timerFired(deadline))
        #expect(core(expired).filter { $0 != .startTimer(ConnectionTimer(kind: .poll, token: 2), after: .seconds(3)) }
            == [.close(id: 1), .publish(.reconnecting(attempt: 1)), .attempt(id: 2)])
        #expect(timer(.poll, in: expired)?.1 == .seconds(3))
        #expect(m.failures == 1)
        #expect(m.handle(.attemptSucceeded(id: 1)) == [.close(id: 1)])
        let opened = m.handle(.attemptSucceeded(id: 2))
        #expect(opened.contains(.cancelTimer(.attemptDeadline)))
        guard let (secondDeadline, _) = timer(.attemptDeadline, in: expired) else { return }
        #expect(m.handle(.timerFired(secondDeadline)) == [])
    }

    @Test("session ended: failed, delegate told, everything stopped; start() begins again")
    func sessionEnded() {
        var m = machine()
        _ = m.handle(.start)
        let effects = m.handle(.attemptFailed(id: 1, .sessionEnded))
        #expect(core(effects) == [.publish(.failed(reason: "session ended")), .sessionEnded])
        #expect(m.handle(.networkChanged) == [])
        #expect(m.handle(.enterForeground) == [])
        #expect(core(m.handle(.start)) == [.publish(.connecting), .attempt(id: 2)])
    }

    @Test("not logged in: failed, no session-ended notice")
    func notLoggedIn() {
        var m = machine()
        _ = m.handle(.start)
        #expect(core(m.handle(.attemptFailed(id: 1, .notLoggedIn))) == [.publish(.failed(reason: "not logged in"))])
    }

    @Test("session ended reported by the delegate while connected closes the socket")
    func sessionEndedWhileConnected() {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        let effects = m.handle(.sessionEnded)
        #expect(effects.first == .close(id: 1))
        #expect(states(effects) == [.failed(reason: "session ended")])
        #expect(effects.last == .sessionEnded)
        #expect(effects.contains(.cancelTimer(.followUp)) && effects.contains(.cancelTimer(.stable)))
    }

    @Test("a stable connection that is lost reconnects at once, a short-lived one counts as a failure")
    func lostConnections() {
        var m = machine()
        _ = m.handle(.start)
        let opened = m.handle(.attemptSucceeded(id: 1))
        guard let (stable, _) = timer(.stable, in: opened) else {
            Issue.record("no stability timer")
            return
        }
        _ = m.handle(.timerFired(stable))
        let lost = m.handle(.connectionEnded(id: 1))
        #expect(states(lost) == [.reconnecting(attempt: 1)])
        #expect(lost.contains(.attempt(id: 2)))
        #expect(m.failures == 0)

        _ = m.handle(.attemptSucceeded(id: 2))
        let flapped = m.handle(.connectionEnded(id: 2))
        #expect(m.failures == 1)
        #expect(states(flapped) == [.reconnecting(attempt: 2)])
        #expect(timer(.retry, in: flapped)?.1 == .milliseconds(500))
    }

    @Test("a socket that opens and drops at once falls back to polling after five drops")
    func flappingSocketPolls() {
        var m = machine()
        _ = m.handle(.start)
        var last: [ConnectionEffect] = []
        for _ in 1...5 {
            let id = m.currentAttempt ?? -1
            _ = m.handle(.attemptSucceeded(id: id))
            last = m.handle(.connectionEnded(id: id))
            if let (retry, _) = timer(.retry, in: last) { _ = m.handle(.timerFired(retry)) }
        }
        #expect(states(last) == [.polling])
        #expect(m.polling)
    }
}
