/// Every duration and count of the connection supervisor in one documented place (docs/spec/sync.md
/// "Connection", docs/spec/server-api.md §6 and §9). The defaults are the spec's; tests shrink them.
///
/// The delay functions are pure: the random draw for the jitter is passed in as `unit`
/// (0…1, 0.5 meaning "no jitter"), so a test with a fixed draw gets exact figures.
public struct ConnectionPolicy: Sendable, Equatable {
    /// The first step of the exponential backoff (1 s). The first retry of a run is immediate,
    /// the next ``quickRetries`` wait half of this each (so a server that comes back within a
    /// few seconds is reached within about half a second), then the waits double from this
    /// value: with the defaults 0, 0.5 × 16, 1, 2, 4, 8, 16, 30, 30 … s (±25 %).
    public var backoffBase: Duration
    /// How many retries after the immediate one wait only half of ``backoffBase`` (16: the
    /// first six to ten seconds of an outage, with the jitter) before the exponential backoff
    /// starts.
    public var quickRetries: Int
    /// No backoff or probe delay is ever longer than this, jitter included (30 s).
    public var backoffCap: Duration
    /// The jitter spread: each backoff is multiplied by a factor in `1 ± jitter` (0.25).
    public var jitter: Double
    /// Consecutive failed attempts after which REST polling starts (5). A connection that
    /// closes before ``stableConnection`` counts as a failed attempt.
    public var failuresBeforePolling: Int
    /// The longest interval between REST polls while the socket is down (30 s, the design
    /// notes' polling interval); the interval relaxes to it from ``firstPollInterval``.
    public var pollInterval: Duration
    /// The interval after the first poll (2 s); each later interval doubles, up to
    /// ``pollInterval``: with the defaults polls run 2, 4, 8, 16, 30, 30 … s apart.
    public var firstPollInterval: Duration
    /// How long after the socket was lost (or a run's first attempt failed) polling starts if
    /// the socket is not back by then (3 s; the design notes ask for < 5 s). Polling also starts
    /// at once after ``failuresBeforePolling`` failures or a 503. `nil`: only those.
    public var pollingStart: Duration?
    /// How long after the 201 of a message of ours its echo may take on an open socket (10 s):
    /// a later echo means the socket is deaf (docs/spec/sync.md "Connection").
    public var echoTimeout: Duration
    /// How long an open socket may deliver no event before the client checks that events still
    /// reach it (45 s): the *echo check* sends a `typing.stop` for a channel id of this
    /// supervisor's own, subscribed on every socket, which the server publishes back to this
    /// user's sockets as an event; its echo (or any other event) must arrive within
    /// ``echoTimeout``, else the socket is deaf (docs/spec/sync.md §11.6). Each wait is drawn
    /// between `1 − jitter` of this and all of it (``echoCheckDelay(unit:)``), never longer: a
    /// deaf socket is noticed at most this plus ``echoTimeout`` (55 s) after its last event.
    /// `nil` turns the check off (then ``deafCheckInterval`` watches the socket).
    public var echoCheckInterval: Duration?
    /// How often an open socket that the echo check cannot watch — it is off, or this server
    /// never echoed it — is checked with one light REST read instead (5 min): a message there
    /// that the socket should have delivered means it is deaf. `nil` turns that check off.
    public var deafCheckInterval: Duration?
    /// How often the delegate re-reads membership while connected (15 min): the server never
    /// pushes membership changes (docs/spec/server-api.md §A5.1). `nil` turns it off.
    public var membershipWatchInterval: Duration?
    /// How long after an open socket delivers a message (the first since the last such read) the
    /// channels it delivered into are read over REST back to their verified marks (60 s). The
    /// server's fan-out can die and be healed by another client's new socket without this one
    /// ever going quiet (docs/spec/server-api.md §12), so what a socket delivers proves nothing
    /// about what it did not: this read finds what such a hole lost, within a minute, without a
    /// reconnect (docs/spec/sync.md §11.6). `nil` turns it off: then only a reconnect, a poll
    /// or an app's sync reads the hole.
    public var socketConfirmationDelay: Duration?
    /// How far a message read by that check must be from the socket's opening and from now to
    /// count as one the socket should have delivered (10 s): it covers the subscribe gap,
    /// events still queued for the delegate, and clock differences with the server.
    public var deafGrace: Duration
    /// How long a connection must stay open before the failure count is cleared (10 s); keeps a
    /// socket that the server accepts and drops at once from reconnecting in a tight loop.
    public var stableConnection: Duration
    /// The wait after a 429 that carries no `Retry-After` (10 s, the reference server's value).
    public var defaultRetryAfter: Duration
    /// The longest wait a run of 429s escalates to (60 s, the reference limiter's fixed window).
    public var rateLimitCap: Duration
    /// How long `networkChanged()` waits for the network to settle before reconnecting (2 s).
    public var networkSettle: Duration
    /// When the second catch-up runs after a socket opens or a channel is subscribed (2 s): the
    /// server gives no ready signal and subscribes a moment after the handshake (docs/spec/server-api.md §6).
    public var followUpCatchUp: Duration
    /// How long one attempt (ticket, then handshake) may take before it counts as failed (30 s,
    /// the ticket's own lifetime), so a connect that never answers cannot stall the supervisor.
    public var attemptTimeout: Duration
    /// How long `enterBackground()` waits for a closing socket to hand over its last events
    /// before telling the delegate anyway (2 s).
    public var closeDrainLimit: Duration
    /// While the server cannot be reached (an attempt got no answer at all), a cheap health
    /// check (`GET /health`: no authentication, no rate limit on the reference server) runs
    /// this often between the attempts, and the first one that answers starts an attempt at
    /// once (0.5 s): the socket is back within about this long of the server's return,
    /// however long the outage. `nil` turns the checks off (the backoff alone paces attempts).
    public var healthCheckInterval: Duration?
    /// How many health checks run at ``healthCheckInterval`` in one outage before they relax
    /// to ``relaxedHealthCheckInterval`` (600: five minutes at 0.5 s).
    public var healthChecksAtFullPace: Int
    /// The interval between health checks once an outage has lasted ``healthChecksAtFullPace``
    /// of them (5 s): a phone left in the foreground without a server is not woken every
    /// half second for ever.
    public var relaxedHealthCheckInterval: Duration
    /// How many socket events and frame reports may wait for the delegate (10,000). A socket
    /// that gets further ahead — a flood, or a delegate stuck behind a long catch-up — is
    /// closed and its later frames dropped, instead of buffered without end; the reconnect's
    /// catch-up reads the messages it dropped, as after any lost connection.
    public var maxQueuedEvents: Int

    /// A policy; every default is the spec's value (see each property).
    public init(
        backoffBase: Duration = .seconds(1),
        quickRetries: Int = 16,
        backoffCap: Duration = .seconds(30),
        jitter: Double = 0.25,
        failuresBeforePolling: Int = 5,
        pollInterval: Duration = .seconds(30),
        firstPollInterval: Duration = .seconds(2),
        pollingStart: Duration? = .seconds(3),
        echoTimeout: Duration = .seconds(10),
        echoCheckInterval: Duration? = .seconds(45),
        deafCheckInterval: Duration? = .seconds(300),
        membershipWatchInterval: Duration? = .seconds(900),
        socketConfirmationDelay: Duration? = .seconds(60),
        deafGrace: Duration = .seconds(10),
        stableConnection: Duration = .seconds(10),
        defaultRetryAfter: Duration = .seconds(10),
        rateLimitCap: Duration = .seconds(60),
        networkSettle: Duration = .seconds(2),
        followUpCatchUp: Duration = .seconds(2),
        attemptTimeout: Duration = .seconds(30),
        closeDrainLimit: Duration = .seconds(2),
        healthCheckInterval: Duration? = .milliseconds(500),
        healthChecksAtFullPace: Int = 600,
        relaxedHealthCheckInterval: Duration = .seconds(5),
        maxQueuedEvents: Int = 10_000
    ) {
        self.backoffBase = backoffBase
        self.quickRetries = max(0, quickRetries)
        self.backoffCap = backoffCap
        self.jitter = min(max(jitter, 0), 1)
        self.failuresBeforePolling = max(1, failuresBeforePolling)
        self.pollInterval = pollInterval
        self.firstPollInterval = firstPollInterval
        self.pollingStart = pollingStart
        self.echoTimeout = echoTimeout
        self.echoCheckInterval = echoCheckInterval
        self.deafCheckInterval = deafCheckInterval
        self.membershipWatchInterval = membershipWatchInterval
        self.socketConfirmationDelay = socketConfirmationDelay
        self.deafGrace = deafGrace
        self.stableConnection = stableConnection
        self.defaultRetryAfter = defaultRetryAfter
        self.rateLimitCap = rateLimitCap
        self.networkSettle = networkSettle
        self.followUpCatchUp = followUpCatchUp
        self.attemptTimeout = attemptTimeout
        self.closeDrainLimit = closeDrainLimit
        self.healthCheckInterval = healthCheckInterval
        self.healthChecksAtFullPace = max(0, healthChecksAtFullPace)
        self.relaxedHealthCheckInterval = relaxedHealthCheckInterval
        self.maxQueuedEvents = max(1, maxQueuedEvents)
    }

    /// The spec's policy.
    public static let standard = ConnectionPolicy()

    /// The wait before reconnect attempt `attempt` (1, 2, …) of a run: 0 for the first, half of
    /// ``backoffBase`` for the next ``quickRetries``, then `backoffBase × 2^k` (k = 0, 1, …),
    /// each with jitter and never above ``backoffCap``.
    /// - Parameters:
    ///   - attempt: the attempt's number in this run, from 1.
    ///   - unit: the random draw in 0…1 (clamped).
    public func reconnectDelay(attempt: Int, unit: Double) -> Duration {
        guard attempt > 1 else { return .zero }
        let retry = attempt - 1  // 1 for the first retry after the immediate attempt
        guard retry > quickRetries else { return jittered(min(backoffBase / 2, backoffCap), unit: unit) }
        let doublings = min(retry - quickRetries - 1, 32)
        let base = backoffBase * (1 << doublings)
        return jittered(min(base, backoffCap), unit: unit)
    }

    /// The wait before poll `poll` + 1 after poll `poll` (1, 2, …) of an outage:
    /// ``firstPollInterval`` doubling each time, never above ``pollInterval``.
    public func pollDelay(after poll: Int) -> Duration {
        let doublings = min(max(poll - 1, 0), 32)
        return min(firstPollInterval * (1 << doublings), pollInterval)
    }

    /// The wait between socket probes while polling: the capped backoff, with jitter.
    /// - Parameter unit: the random draw in 0…1 (clamped).
    public func probeDelay(unit: Double) -> Duration {
        jittered(backoffCap, unit: unit)
    }

    /// The wait before the next echo check after the socket last delivered an event: between
    /// `1 − jitter` of ``echoCheckInterval`` (`unit` 1) and all of it (`unit` 0), so that the
    /// sockets of many clients drift apart; `nil` when the echo check is off.
    /// - Parameter unit: the random draw in 0…1 (clamped).
    public func echoCheckDelay(unit: Double) -> Duration? {
        guard let interval = echoCheckInterval else { return nil }
        let draw = unit.isFinite ? min(max(unit, 0), 1) : 0.5
        return interval * (1 - jitter * draw)
    }

    /// The wait before health check `check` + 1 after check `check` (1, 2, …) of an outage:
    /// ``healthCheckInterval`` for the first ``healthChecksAtFullPace``, then
    /// ``relaxedHealthCheckInterval``; `nil` when health checks are off.
    public func healthCheckDelay(after check: Int) -> Duration? {
        guard let interval = healthCheckInterval else { return nil }
        return check < healthChecksAtFullPace ? interval : max(interval, relaxedHealthCheckInterval)
    }

    /// The wait after the `refusals`-th 429 in a row (1, 2, …): what `Retry-After` asked the
    /// first time (``defaultRetryAfter`` without it), then doubling up to ``rateLimitCap`` —
    /// never less than the server asked, since its window is often longer than it says (docs/spec/server-api.md §9).
    public func rateLimitDelay(retryAfter: Int?, refusals: Int) -> Duration {
        let asked = retryAfter.map { Duration.seconds(max(0, $0)) } ?? defaultRetryAfter
        guard refusals > 1 else { return asked }
        let doublings = min(refusals - 1, 32)
        let escalated = min(max(asked, backoffBase) * (1 << doublings), rateLimitCap)
        return max(asked, escalated)
    }

    /// `delay` times a factor in `1 ± jitter`, never above ``backoffCap``.
    private func jittered(_ delay: Duration, unit: Double) -> Duration {
        let draw = unit.isFinite ? min(max(unit, 0), 1) : 0.5
        let factor = 1 + jitter * (2 * draw - 1)
        return min(delay * factor, backoffCap)
    }
}
