/// The keepalive rules of ``RealtimeConnectionOptions`` as a pure state machine: it is told
/// when frames, server pings and pongs arrive and asked, on a regular tick, what to do. Times
/// are offsets from the start of the connection, so tests drive it without a clock.
///
/// One keepalive, not two: while the server's own pings keep arriving (one within the last
/// ``RealtimeConnectionOptions/pingInterval``), a client ping that falls due is skipped — the
/// server's ping and our pong already keep the connection and its NAT mappings alive. When they
/// stop, the client pings again, and the watchdog rules hold throughout.
struct KeepaliveMonitor: Sendable {
    /// What the connection must do after a tick.
    enum Action: Sendable, Equatable {
        /// Nothing yet.
        case wait
        /// Send a ping.
        case sendPing
        /// The connection is dead; the text says which rule fired.
        case dead(String)
    }

    private let pingInterval: Duration?
    private let missedPongLimit: Int
    private let idleTimeout: Duration?
    private var lastFrame: Duration = .zero
    private var lastPing: Duration?
    private var unansweredPings = 0
    private var lastServerPing: Duration?

    init(options: RealtimeConnectionOptions) {
        pingInterval = options.pingInterval
        missedPongLimit = options.missedPongLimit
        idleTimeout = options.idleTimeout
    }

    /// Whether any rule is on (otherwise no tick is needed).
    var isActive: Bool { pingInterval != nil || idleTimeout != nil }

    /// How often to tick: a fifth of the shortest interval, at least 10 ms.
    var tickInterval: Duration? {
        let shortest = [pingInterval, idleTimeout].compactMap { $0 }.min()
        return shortest.map { max($0 / 5, .milliseconds(10)) }
    }

    /// A frame of any kind arrived at `time`.
    mutating func frameReceived(at time: Duration) {
        lastFrame = max(lastFrame, time)
    }

    /// The server pinged at `time`: the connection is alive, and our own ping can wait.
    mutating func serverPingReceived(at time: Duration) {
        frameReceived(at: time)
        lastServerPing = max(lastServerPing ?? time, time)
        unansweredPings = 0
    }

    /// A pong arrived at `time`: every ping counts as answered.
    mutating func pongReceived(at time: Duration) {
        frameReceived(at: time)
        unansweredPings = 0
    }

    /// What to do at `time`.
    mutating func tick(at time: Duration) -> Action {
        if let idleTimeout, time - lastFrame >= idleTimeout {
            return .dead("keepalive: no frame for \(Self.seconds(time - lastFrame))")
        }
        guard let pingInterval else { return .wait }
        let due = lastPing.map { time - $0 >= pingInterval } ?? (time >= pingInterval)
        guard due else { return .wait }
        if let lastServerPing, time - lastServerPing < pingInterval {
            lastPing = time  // the server's ping did our ping's job; the next one is due later
            return .wait
        }
        if unansweredPings >= missedPongLimit {
            return .dead("keepalive: \(unansweredPings) pings unanswered")
        }
        unansweredPings += 1
        lastPing = time
        return .sendPing
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(Double(milliseconds) / 1000) s"
    }
}
