@testable import E2EEMessaging
import Testing

/// docs/spec/sync.md §11.6, the socket's confirmation read, in the pure machine: a minute after an
/// open socket delivers a message (the first since the last read), the delegate reads the
/// channels it delivered into; a quiet socket never reads, a busy one reads once per delay.
@Suite("Connection machine: the socket's confirmation read")
struct SocketConfirmationMachineTests: MachineTesting {
    private var policy: ConnectionPolicy {
        var policy = Self.policy
        policy.socketConfirmationDelay = .seconds(60)
        return policy
    }

    /// A machine whose socket (attempt 1) is open.
    private func connected() -> ConnectionMachine {
        var m = machine(policy)
        _ = m.handle(.start)
        _ = m.handle(.attemptSucceeded(id: 1))
        return m
    }

    @Test("the first delivery times the read; more deliveries meanwhile add nothing; the timer asks for the read; the next delivery times the next")
    func oneReadPerDelay() {
        var m = connected()
        let first = m.handle(.echoSeen(messageID: "m1"))
        guard let (confirmation, delay) = timer(.socketConfirmation, in: first) else {
            Issue.record("no confirmation timer: \(first)")
            return
        }
        #expect(delay == .seconds(60))
        #expect(m.handle(.echoSeen(messageID: "m2")) == [])
        #expect(m.handle(.timerFired(confirmation)) == [.catchUp(.socketConfirmation)])
        #expect(m.handle(.timerFired(confirmation)) == [], "a timer fires once")
        #expect(timer(.socketConfirmation, in: m.handle(.echoSeen(messageID: "m3"))) != nil)
    }

    @Test("a quiet socket never reads")
    func quietSocketNeverReads() {
        var m = connected()
        #expect(m.liveTimers[.socketConfirmation] == nil)
        let opened = m.handle(.subscribe(channelID: "c1"))
        #expect(timer(.socketConfirmation, in: opened) == nil)
    }

    @Test("the socket ends before the read: the timer is cancelled (the reconnect's catch-up reads everything), and a late firing does nothing")
    func connectionEndCancelsTheRead() {
        var m = connected()
        guard let (confirmation, _) = timer(.socketConfirmation, in: m.handle(.echoSeen(messageID: "m1"))) else {
            Issue.record("no confirmation timer")
            return
        }
        let lost = m.handle(.connectionEnded(id: 1))
        #expect(lost.contains(.cancelTimer(.socketConfirmation)))
        #expect(m.handle(.timerFired(confirmation)) == [])
    }

    @Test("while the socket is down nothing is timed; with the read turned off nothing ever is")
    func onlyWhileConnectedAndOn() {
        var m = machine(policy)
        _ = m.handle(.start)
        #expect(m.handle(.echoSeen(messageID: "m1")) == [])
        var off = machine()
        _ = off.handle(.start)
        _ = off.handle(.attemptSucceeded(id: 1))
        #expect(off.handle(.echoSeen(messageID: "m1")) == [])
    }
}
