@testable import E2EEMessaging
import Testing

/// Issue 43 item 12's bound through the pure machine in simulated time: an idle socket whose
/// server's fan-out dies (docs/spec/server-api.md §12) is reopened within 55 s — whatever the
/// jitter draws and wherever the death falls between two checks — and an idle socket whose
/// fan-out works costs at most two echo checks a minute and no reconnect.
@Suite("Echo check schedule")
struct EchoCheckScheduleTests {
    private let policy = ConnectionPolicy.standard

    @Test("the fan-out dies while idle: the socket is reopened within 45 + 10 s, whatever the draw and the phase",
          arguments: [0.0, 0.5, 1.0])
    func deafIdleSocketIsReopenedWithinTheBound(draw: Double) {
        for offset in [0, 1, 5, 17, 30, 33, 38, 44, 50] {
            var sim = OutageSimulator(policy: policy, draw: draw)
            sim.connect()
            sim.advance(to: sim.now + .seconds(100 + offset))
            sim.killFanOut()
            let killed = sim.now
            sim.advance(to: killed + .seconds(120))
            guard let back = sim.connected(after: killed) else {
                Issue.record("draw \(draw), offset \(offset): never reopened")
                continue
            }
            #expect(back - killed <= .seconds(55), "draw \(draw), offset \(offset): reopened \(back - killed) after the fan-out died")
        }
    }

    @Test("an idle socket whose fan-out works: one to two echo checks a minute, no reconnect, the REST check never runs",
          arguments: [0.0, 0.5, 1.0])
    func healthyIdleSocketCost(draw: Double) {
        var sim = OutageSimulator(policy: policy, draw: draw)
        sim.connect()
        let start = sim.now
        sim.advance(to: start + .seconds(30 * 60))
        let checks = sim.perMinute(.echoCheck, from: start, minutes: 29)
        #expect(checks.allSatisfy { (1...2).contains($0) }, "checks per minute: \(checks)")
        #expect(sim.times(of: .attempt).count == 1, "only the first connect")
        #expect(sim.times(of: .poll).isEmpty)
    }
}
