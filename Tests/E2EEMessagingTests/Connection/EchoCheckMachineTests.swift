@testable import E2EEMessaging
import Testing

/// docs/spec/sync.md §11.6, the echo check, in the pure machine: a quiet open socket is checked,
/// any event answers the check, an unanswered one reconnects — and a server that never echoes
/// costs one reconnect, not a loop.
@Suite("Connection machine: echo checks")
struct EchoCheckMachineTests: MachineTesting {
    /// The spec's policy (echo check on, membership watch on), with a fixed draw of 0.5.
    private static let standard = ConnectionPolicy.standard

    /// A machine whose socket (attempt 1) is open, and the effects of its opening.
    private func connected() -> (ConnectionMachine, opened: [ConnectionEffect]) {
        var m = machine(Self.standard)
        _ = m.handle(.start)
        let opened = m.handle(.attemptSucceeded(id: 1))
        return (m, opened)
    }

    /// Fires the echo-check timer started by `effects` and returns what it did.
    private func fireCheck(_ m: inout ConnectionMachine, after effects: [ConnectionEffect]) -> [ConnectionEffect] {
        guard let (check, _) = timer(.echoCheck, in: effects) else {
            Issue.record("no echo-check timer in \(effects)")
            return []
        }
        return m.handle(.timerFired(check))
    }

    @Test("a quiet socket is checked after 45 s × (1 − 0.25 × draw); any event answers and restarts the wait")
    func quietSocketIsChecked() {
        var (m, opened) = connected()
        #expect(timer(.echoCheck, in: opened)?.1 == .seconds(39.375))  // draw 0.5
        #expect(timer(.deafCheck, in: opened) == nil, "the echo check watches: no REST light check")
        #expect(timer(.membershipWatch, in: opened)?.1 == .seconds(900))

        // An event before the check is due starts the wait again.
        let heard = m.handle(.socketHeard(id: 1, checkEcho: false))
        #expect(timer(.echoCheck, in: heard)?.1 == .seconds(39.375))
        #expect(m.handle(.socketHeard(id: 9, checkEcho: false)) == [], "a stale socket's event changes nothing")

        let sent = fireCheck(&m, after: heard)
        #expect(sent.first == .sendEchoCheck(id: 1))
        #expect(timer(.echoCheckDeadline, in: sent)?.1 == .seconds(10))
        let answered = m.handle(.socketHeard(id: 1, checkEcho: true))
        #expect(answered.first == .cancelTimer(.echoCheckDeadline))
        #expect(timer(.echoCheck, in: answered) != nil)
        #expect(m.echoChecks.answered)
        guard let (deadline, _) = timer(.echoCheckDeadline, in: sent) else { return }
        #expect(m.handle(.timerFired(deadline)) == [], "an answered check's deadline is stale")
        #expect(m.phase == .connected)
    }

    @Test("any event, not only the check's echo, answers a check in flight")
    func anyEventAnswers() {
        var (m, opened) = connected()
        let sent = fireCheck(&m, after: opened)
        let heard = m.handle(.socketHeard(id: 1, checkEcho: false))
        #expect(heard.contains(.cancelTimer(.echoCheckDeadline)))
        #expect(!m.echoChecks.answered, "only the echo itself shows the server echoes checks")
        guard let (deadline, _) = timer(.echoCheckDeadline, in: sent) else { return }
        #expect(m.handle(.timerFired(deadline)) == [])
    }

    @Test("a check unanswered within 10 s, on a server that answered one before: closed and reopened at once")
    func unansweredCheckReconnects() {
        var (m, opened) = connected()
        _ = fireCheck(&m, after: opened)
        let answered = m.handle(.socketHeard(id: 1, checkEcho: true))
        let sent = fireCheck(&m, after: answered)
        guard let (deadline, _) = timer(.echoCheckDeadline, in: sent) else {
            Issue.record("no deadline")
            return
        }
        let deaf = m.handle(.timerFired(deadline))
        #expect(deaf.first == .close(id: 1))
        #expect(m.liveTimers[.echoCheck] == nil && m.liveTimers[.echoCheckDeadline] == nil)
        #expect(deaf.contains(.cancelTimer(.membershipWatch)))
        #expect(deaf.contains(.attempt(id: 2)))
        #expect(states(deaf) == [.reconnecting(attempt: 1)])
        let reopened = m.handle(.attemptSucceeded(id: 2))
        #expect(timer(.echoCheck, in: reopened) != nil, "the new socket is checked too")
    }

    @Test("a server that never echoes: the first unanswered check reconnects, the second in a row stops the checks and the REST check takes over")
    func serverWithoutEcho() {
        var (m, opened) = connected()
        let sent = fireCheck(&m, after: opened)
        guard let (deadline, _) = timer(.echoCheckDeadline, in: sent) else { return }
        let deaf = m.handle(.timerFired(deadline))
        #expect(deaf.contains(.attempt(id: 2)), "it may really be deaf: one reconnect")
        let reopened = m.handle(.attemptSucceeded(id: 2))
        let again = fireCheck(&m, after: reopened)
        guard let (second, _) = timer(.echoCheckDeadline, in: again) else { return }
        let gaveUp = m.handle(.timerFired(second))
        #expect(!gaveUp.contains(.close(id: 2)), "a healthy socket of a server that does not echo is kept")
        #expect(m.echoChecks.unsupported)
        #expect(timer(.deafCheck, in: gaveUp)?.1 == .seconds(300))
        #expect(m.phase == .connected)

        // From now on: events do not arm checks, new sockets get the REST check.
        #expect(timer(.echoCheck, in: m.handle(.socketHeard(id: 2, checkEcho: false))) == nil)
        _ = m.handle(.socketDeaf(id: 2))
        let third = m.handle(.attemptSucceeded(id: 3))
        #expect(timer(.echoCheck, in: third) == nil)
        #expect(timer(.deafCheck, in: third) != nil)
    }

    @Test("a check that goes unanswered after one was answered once is deafness, however many came before")
    func answeredOnceMeansDeaf() {
        var (m, opened) = connected()
        let sent = fireCheck(&m, after: opened)
        guard let (deadline, _) = timer(.echoCheckDeadline, in: sent) else { return }
        _ = m.handle(.timerFired(deadline))  // unanswered, never answered: reconnect
        _ = m.handle(.attemptSucceeded(id: 2))
        let answeredEffects = m.handle(.socketHeard(id: 2, checkEcho: true))  // the new socket's fan-out works
        for attempt in 2...4 {
            let check = fireCheck(&m, after: attempt == 2 ? answeredEffects : m.handle(.attemptSucceeded(id: attempt)))
            guard let (due, _) = timer(.echoCheckDeadline, in: check) else { return }
            #expect(m.handle(.timerFired(due)).contains(.close(id: attempt)))
        }
        #expect(!m.echoChecks.unsupported)
    }

    @Test("the membership watch is asked every 15 minutes while connected, and not after the socket is lost")
    func membershipWatch() {
        var (m, opened) = connected()
        guard let (watch, delay) = timer(.membershipWatch, in: opened) else {
            Issue.record("no membership timer")
            return
        }
        #expect(delay == .seconds(900))
        let fired = m.handle(.timerFired(watch))
        #expect(fired.first == .watchMembership)
        #expect(timer(.membershipWatch, in: fired)?.1 == .seconds(900))
        let lost = m.handle(.connectionEnded(id: 1))
        #expect(lost.contains(.cancelTimer(.membershipWatch)))
    }

    @Test("the check's wait is 45 s × (1 − 0.25 × draw): never longer than 45 s, never shorter than 33.75 s")
    func delayBounds() {
        let policy = ConnectionPolicy.standard
        #expect(policy.echoCheckDelay(unit: 0) == .seconds(45))
        #expect(policy.echoCheckDelay(unit: 1) == .seconds(33.75))
        #expect(policy.echoCheckDelay(unit: 7) == .seconds(33.75))
        #expect(policy.echoCheckDelay(unit: .nan) == .seconds(39.375))
        #expect(ConnectionPolicy(echoCheckInterval: nil).echoCheckDelay(unit: 0.5) == nil)
    }
}
