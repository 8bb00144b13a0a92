@testable import E2EETransport
import E2EEMessaging
import Testing

/// Issue 21's single keepalive, in the pure monitor: the server's pings (the reference server
/// sends one every 20 s) make the client's own ping unnecessary; the watchdog rules still hold.
@Suite("Single keepalive")
struct SingleKeepaliveTests {
    /// Ticks the way the session does (every `tick`) from `start` to `end`, returning every
    /// action other than `.wait` with its time; the server pings at `serverPings`.
    private func run(_ monitor: inout KeepaliveMonitor, from start: Int, to end: Int, tick: Int = 6,
                     serverPings: [Int] = []) -> [(Int, KeepaliveMonitor.Action)] {
        var actions: [(Int, KeepaliveMonitor.Action)] = []
        var pings = serverPings.sorted()[...]
        var time = start
        while time <= end {
            while let ping = pings.first, ping <= time {
                monitor.serverPingReceived(at: .seconds(ping))
                pings = pings.dropFirst()
            }
            let action = monitor.tick(at: .seconds(time))
            if action != .wait { actions.append((time, action)) }
            if case .dead = action { break }
            time += tick
        }
        return actions
    }

    @Test func serverPingsEvery20sMeanNoClientPingForTenMinutes() {
        var monitor = KeepaliveMonitor(options: .standard)
        let actions = run(&monitor, from: 0, to: 600, serverPings: Array(stride(from: 20, through: 600, by: 20)))
        #expect(actions.isEmpty, "actions: \(actions)")
    }

    @Test func whenServerPingsStopTheClientPingsAndTwoMissedPongsAreDeadWithin90s() {
        var monitor = KeepaliveMonitor(options: RealtimeConnectionOptions(idleTimeout: nil))
        let actions = run(&monitor, from: 0, to: 600, serverPings: [20, 40, 60])
        #expect(actions.map(\.1) == [.sendPing, .sendPing, .dead("keepalive: 2 pings unanswered")])
        let pingTimes = actions.map(\.0)
        #expect(pingTimes[0] > 60 && pingTimes[0] <= 96, "first own ping \(pingTimes[0]) s")
        #expect(pingTimes[2] - 60 <= 162, "dead \(pingTimes[2] - 60) s after the last server ping")
    }

    @Test func withDefaultsNinetySecondsOfSilenceAreDeadEvenAfterServerPings() {
        var monitor = KeepaliveMonitor(options: .standard)
        let actions = run(&monitor, from: 0, to: 600, serverPings: [20, 40, 60])
        guard let last = actions.last, case .dead(let reason) = last.1 else {
            Issue.record("never declared dead: \(actions)")
            return
        }
        #expect(last.0 == 150, "dead at \(last.0) s: 90 s after the last frame")
        #expect(reason == "keepalive: no frame for 90.0 s")
        #expect(actions.dropLast().allSatisfy { $0.1 == .sendPing })
    }

    @Test func aServerPingAnswersForMissedPongsOfEarlierOwnPings() {
        var monitor = KeepaliveMonitor(options: RealtimeConnectionOptions(idleTimeout: nil))
        #expect(monitor.tick(at: .seconds(30)) == .sendPing)
        #expect(monitor.tick(at: .seconds(60)) == .sendPing)
        monitor.serverPingReceived(at: .seconds(70))
        #expect(monitor.tick(at: .seconds(90)) == .wait, "the server pinged within the interval")
        #expect(monitor.tick(at: .seconds(120)) == .sendPing)
        #expect(monitor.tick(at: .seconds(150)) == .sendPing, "the count started over at the server's ping")
        #expect(monitor.tick(at: .seconds(180)) == .dead("keepalive: 2 pings unanswered"))
    }
}
