@testable import E2EEMessaging

/// Drives a ``ConnectionMachine`` through simulated time: timers fire in order, every attempt
/// fails at once while the server is down (`downUntil`) and opens once it is back, and every
/// request the machine causes is logged with its time. Nothing sleeps. A server that is down
/// either refuses attempts with an answer (`.other`) or does not answer at all
/// (`.unreachable`, a stopped server: health checks then run and answer `.down` until it is back).
/// Echo checks are answered at once, unless the server's fan-out was killed (``killFanOut()``):
/// then none is, until a new socket opens, which heals it (docs/spec/server-api.md §12).
struct OutageSimulator {
    /// A request the machine caused, at `time` (offset from the start of the simulation).
    enum Request: Equatable {
        /// A reconnect attempt: the ticket `POST` (and, if it is answered, the handshake).
        case attempt
        /// A REST poll.
        case poll
        /// A health check (`GET /health`).
        case healthCheck
        /// An echo check (a socket frame, not a request to the rate limiter).
        case echoCheck
    }

    private(set) var machine: ConnectionMachine
    private(set) var now: Duration = .zero
    private(set) var log: [(time: Duration, request: Request)] = []
    /// Every state published, with its time.
    private(set) var states: [(time: Duration, state: ConnectionState)] = []
    private var timers: [(due: Duration, timer: ConnectionTimer)] = []
    private var downUntil: Duration = .zero
    private var fanOutDead = false
    private let failure: AttemptFailure
    private let healthUpWhileDown: Bool

    /// `healthUpWhileDown`: `GET /health` answers 200 while attempts fail (a load balancer that
    /// answers health while the socket backend is down).
    init(policy: ConnectionPolicy, draw: Double, downFailure: AttemptFailure = .other, healthUpWhileDown: Bool = false) {
        machine = ConnectionMachine(policy: policy, random: { draw })
        failure = downFailure
        self.healthUpWhileDown = healthUpWhileDown
    }

    /// Starts the machine against a server that is up, and lets the connection become stable.
    mutating func connect() {
        run(machine.handle(.start))
        advance(to: now + machine.policy.stableConnection + .seconds(1))
    }

    /// The server goes down now for `outage` (the open socket is lost), and time runs until
    /// `until` after now.
    mutating func loseServer(for outage: Duration, thenRunFor until: Duration) {
        downUntil = now + outage
        let start = now
        if let id = machine.currentAttempt { run(machine.handle(.connectionEnded(id: id))) }
        advance(to: start + until)
    }

    /// Fires every timer due up to `time`, in order.
    mutating func advance(to time: Duration) {
        while let next = timers.min(by: { $0.due < $1.due }), next.due <= time {
            timers.removeAll { $0.timer == next.timer }
            now = next.due
            run(machine.handle(.timerFired(next.timer)))
        }
        now = time
    }

    /// The server's fan-out dies now: the open socket stays open and hears nothing.
    mutating func killFanOut() { fanOutDead = true }

    /// The time of the first `.connected` at or after `time`.
    func connected(after time: Duration) -> Duration? {
        states.first { $0.time >= time && $0.state == .connected }?.time
    }

    /// The requests of `kind` in each whole minute from `start`, for `minutes` minutes.
    func perMinute(_ kind: Request, from start: Duration, minutes: Int) -> [Int] {
        (0..<minutes).map { minute in
            let low = start + .seconds(60 * minute), high = low + .seconds(60)
            return log.filter { $0.request == kind && $0.time >= low && $0.time < high }.count
        }
    }

    /// The times of the requests of `kind`.
    func times(of kind: Request) -> [Duration] { log.filter { $0.request == kind }.map(\.time) }

    private mutating func run(_ effects: [ConnectionEffect]) {
        var queue = effects
        while !queue.isEmpty {
            let effect = queue.removeFirst()
            switch effect {
            case .startTimer(let timer, let delay):
                timers.removeAll { $0.timer.kind == timer.kind }
                timers.append((now + delay, timer))
            case .cancelTimer(let kind):
                timers.removeAll { $0.timer.kind == kind }
            case .publish(let state):
                states.append((now, state))
            case .poll:
                log.append((now, .poll))
            case .attempt(let id):
                log.append((now, .attempt))
                let outcome: ConnectionInput = now < downUntil ? .attemptFailed(id: id, failure) : .attemptSucceeded(id: id)
                if case .attemptSucceeded = outcome { fanOutDead = false }  // a new socket heals it
                queue += machine.handle(outcome)
            case .sendEchoCheck(let id):
                log.append((now, .echoCheck))
                if !fanOutDead { queue += machine.handle(.socketHeard(id: id, checkEcho: true)) }
            case .checkHealth(let id):
                log.append((now, .healthCheck))
                queue += machine.handle(.healthChecked(id: id, now < downUntil && !healthUpWhileDown ? .down : .up))
            default:
                continue
            }
        }
    }
}
