@testable import E2EEMessaging
import Testing

/// The machine's lifecycle: stop, stale outcomes and timers, background, foreground, network
/// changes, runtime subscriptions.
@Suite("Connection machine lifecycle")
struct ConnectionMachineLifecycleTests: MachineTesting {
    @Test("stop: closes the socket, cancels timers, ignores the stale outcome, closes what it opened")
    func stop() {
        var m = machine()
        _ = m.handle(.start)
        let stopped = m.handle(.stop)
        #expect(core(stopped) == [.close(id: 1), .publish(.disconnected)])
        #expect(stopped.contains(.cancelTimer(.attemptDeadline)))
        #expect(m.handle(.attemptSucceeded(id: 1)) == [.close(id: 1)])
        #expect(m.handle(.attemptFailed(id: 1, .other)) == [])
        #expect(m.handle(.stop) == [])
    }

    @Test("a timer that fired after being replaced or cancelled does nothing")
    func staleTimers() {
        var m = machine()
        _ = m.handle(.start)
        let first = m.handle(.attemptFailed(id: 1, .other))  // immediate retry, attempt 2
        #expect(first.contains(.attempt(id: 2)))
        let second = m.handle(.attemptFailed(id: 2, .other))
        guard let (retry, _) = timer(.retry, in: second) else {
            Issue.record("no retry timer")
            return
        }
        _ = m.handle(.stop)
        #expect(m.handle(.timerFired(retry)) == [])
        #expect(m.handle(.timerFired(ConnectionTimer(kind: .retry, token: 999))) == [])
    }

    @Test("background closes and tells the delegate; foreground begins a new run")
    func backgroundAndForeground() {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        let background = m.handle(.enterBackground)
        #expect(background.first == .close(id: 1))
        #expect(states(background) == [.disconnected])
        #expect(background.last == .background)
        #expect(m.handle(.enterBackground) == [])
        #expect(m.handle(.networkChanged) == [])
        #expect(m.handle(.connectionEnded(id: 1)) == [])
        #expect(core(m.handle(.enterForeground)) == [.publish(.connecting), .attempt(id: 2)])
    }

    @Test("foreground while connected only catches up; while waiting it retries now")
    func foregroundWhileRunning() {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.attemptFailed(id: 1, .other))
        _ = m.handle(.attemptFailed(id: 2, .other))  // waiting 1 s for attempt 3
        #expect(m.phase == .waiting)
        #expect(core(m.handle(.enterForeground)) == [.cancelTimer(.retry), .attempt(id: 3)])
        _ = m.handle(.attemptSucceeded(id: 3))
        #expect(m.handle(.enterForeground) == [.catchUp(.foreground)])
    }

    @Test("network change: socket closed, settle, then a new run; another change restarts the settle")
    func networkChange() {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        let changed = m.handle(.networkChanged)
        #expect(changed.first == .close(id: 1))
        #expect(states(changed) == [.connecting])
        guard let (settle, delay) = timer(.settle, in: changed) else {
            Issue.record("no settle timer")
            return
        }
        #expect(delay == .seconds(2))
        #expect(attempt(changed) == nil)
        let again = m.handle(.networkChanged)
        guard let (laterSettle, _) = timer(.settle, in: again) else {
            Issue.record("no second settle timer")
            return
        }
        #expect(m.handle(.timerFired(settle)) == [])
        #expect(core(m.handle(.timerFired(laterSettle))) == [.attempt(id: 2)])
    }

    @Test("network change while polling starts a fresh run without polling")
    func networkChangeWhilePolling() {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.attemptFailed(id: 1, .unavailable))
        #expect(m.polling)
        let changed = m.handle(.networkChanged)
        #expect(!m.polling)
        #expect(changed.contains(.cancelTimer(.poll)))
        #expect(states(changed) == [.connecting])
    }

    @Test("runtime subscribe: remembered, sent now with a catch-up and a follow-up, handed to every socket")
    func runtimeSubscribe() {
        var m = machine()
        #expect(m.handle(.subscribe(channelID: "early")) == [])
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        let effects = m.handle(.subscribe(channelID: "late"))
        #expect(Array(effects.prefix(2)) == [.subscribe(channelID: "late", connection: 1), .catchUp(.subscribed(channelID: "late"))])
        guard let (followUp, _) = timer(.subscribeFollowUp("late"), in: effects) else {
            Issue.record("no follow-up timer")
            return
        }
        #expect(m.handle(.timerFired(followUp)) == [.catchUp(.subscribedFollowUp(channelID: "late"))])
        _ = m.handle(.subscribe(channelID: "late"))
        #expect(m.channels == ["early", "late"])
        _ = m.handle(.connectionEnded(id: 1))
        let reopened = m.handle(.attemptSucceeded(id: 2))
        #expect(reopened.contains(.opened(id: 2, channels: ["early", "late"])))
    }

    @Test("errors from the server are classified by what they change")
    func failureClassification() {
        #expect(AttemptFailure(ServerError.sessionEnded) == .sessionEnded)
        #expect(AttemptFailure(ServerError.notLoggedIn) == .notLoggedIn)
        #expect(AttemptFailure(ServerError.rateLimited(retryAfter: 7)) == .rateLimited(retryAfter: 7))
        #expect(AttemptFailure(ServerError.server(status: 503, body: "")) == .unavailable)
        #expect(AttemptFailure(ServerError.server(status: 500, body: "")) == .other)
        #expect(AttemptFailure(ServerError.forbidden(detail: "WebSocket handshake refused")) == .other)
        #expect(AttemptFailure(CancellationError()) == .other)
    }
}
