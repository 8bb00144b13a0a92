@testable import E2EEMessaging
import Testing

/// docs/spec/sync.md "Connection", the deaf socket, in the pure machine: an own echo missing after its
/// 201, and the light periodic check, each close the open socket and reconnect at once.
@Suite("Connection machine: deaf sockets")
struct DeafSocketMachineTests: MachineTesting {
    /// A machine whose socket (attempt 1) is open and has lasted.
    private func connected() -> (ConnectionMachine, opened: [ConnectionEffect]) {
        var m = machine()
        _ = m.handle(.start)
        let opened = m.handle(.attemptSucceeded(id: 1))
        if let (stable, _) = timer(.stable, in: opened) { _ = m.handle(.timerFired(stable)) }
        return (m, opened)
    }

    @Test("an echo missing 10 s after the 201: the socket is closed and reopened at once")
    func missingEchoReconnects() {
        var (m, _) = connected()
        let expected = m.handle(.echoExpected(messageID: "m1"))
        guard let (echo, delay) = timer(.echo("m1"), in: expected) else {
            Issue.record("no echo timer")
            return
        }
        #expect(delay == .seconds(10))
        let deaf = m.handle(.timerFired(echo))
        #expect(deaf.first == .close(id: 1))
        #expect(deaf.contains(.attempt(id: 2)))
        #expect(states(deaf) == [.reconnecting(attempt: 1)])
        #expect(m.failures == 0)
        let reopened = m.handle(.attemptSucceeded(id: 2))
        #expect(reopened.contains(.opened(id: 2, channels: [])))
    }

    @Test("an echo that arrives in time cancels its timer; nothing is closed")
    func echoInTime() {
        var (m, _) = connected()
        let expected = m.handle(.echoExpected(messageID: "m1"))
        _ = m.handle(.echoExpected(messageID: "m2"))
        #expect(m.handle(.echoSeen(messageID: "m1")) == [.cancelTimer(.echo("m1"))])
        #expect(m.handle(.echoSeen(messageID: "other")) == [])
        guard let (echo, _) = timer(.echo("m1"), in: expected) else { return }
        #expect(m.handle(.timerFired(echo)) == [])
        #expect(m.phase == .connected)
        #expect(m.liveTimers[.echo("m2")] != nil)
    }

    @Test("an echo is not expected while the socket is down, and a reconnect forgets the old ones")
    func echoOnlyWhileConnected() {
        var m = machine()
        _ = m.handle(.start)
        #expect(m.handle(.echoExpected(messageID: "m1")) == [])
        _ = m.handle(.attemptSucceeded(id: 1))
        _ = m.handle(.echoExpected(messageID: "m2"))
        let lost = m.handle(.connectionEnded(id: 1))
        #expect(lost.contains(.cancelTimer(.echo("m2"))))
    }

    @Test("the light check runs every 5 minutes while connected; a miss reconnects, a stale answer does nothing")
    func periodicCheck() {
        var (m, opened) = connected()
        guard let (check, delay) = timer(.deafCheck, in: opened) else {
            Issue.record("no check timer")
            return
        }
        #expect(delay == .seconds(300))
        let fired = m.handle(.timerFired(check))
        #expect(fired.first == .checkSocket(id: 1))
        #expect(timer(.deafCheck, in: fired)?.1 == .seconds(300))

        #expect(m.handle(.socketDeaf(id: 7)) == [])
        let deaf = m.handle(.socketDeaf(id: 1))
        #expect(deaf.first == .close(id: 1))
        #expect(deaf.contains(.cancelTimer(.deafCheck)))
        #expect(deaf.contains(.attempt(id: 2)))
        #expect(m.handle(.socketDeaf(id: 1)) == [])
    }

    @Test("no check without a socket, and none when the policy turns it off")
    func checkOnlyWhenOn() {
        var off = machine(ConnectionPolicy(echoCheckInterval: nil, deafCheckInterval: nil))
        _ = off.handle(.start)
        #expect(timer(.deafCheck, in: off.handle(.attemptSucceeded(id: 1))) == nil)

        var (m, opened) = connected()
        _ = m.handle(.stop)
        guard let (check, _) = timer(.deafCheck, in: opened) else { return }
        #expect(m.handle(.timerFired(check)) == [])
    }

    @Test("a deaf socket whose reopening fails goes on like any outage: backoff, then polling within 5 s")
    func deafThenOutage() {
        var (m, _) = connected()
        let deaf = m.handle(.socketDeaf(id: 1))
        #expect(timer(.poll, in: deaf)?.1 == .seconds(3))
        _ = m.handle(.attemptFailed(id: 2, .other))
        #expect(m.phase == .waiting)
    }
}
