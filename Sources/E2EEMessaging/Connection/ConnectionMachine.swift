/// The connection supervisor's protocol state, apart from its I/O (STYLE.md 1): an input in,
/// the new state and the effects to run out. No clocks, no sockets; the only outside value is
/// the jitter draw, passed in.
///
/// A *run* starts with `start()`, `enterForeground()` after the background, or a network change:
/// its first attempt shows `.connecting`; after a failure or a lost connection, attempt `n`
/// shows `.reconnecting(attempt: n)` and waits ``ConnectionPolicy/reconnectDelay(attempt:unit:)``.
/// ``ConnectionPolicy/pollingStart`` after the socket was lost or the run's first attempt failed,
/// after ``ConnectionPolicy/failuresBeforePolling`` failed attempts in a row, or at once on a
/// 503 — whichever comes first — the state is `.polling`: the delegate polls at once, then at
/// intervals that relax from ``ConnectionPolicy/firstPollInterval`` to
/// ``ConnectionPolicy/pollInterval``, while the socket is still tried on the backoff schedule
/// (which reaches the cap); the first attempt that opens stops the polling. A connection that
/// closes before ``ConnectionPolicy/stableConnection`` counts as a failed attempt; one that
/// lasted clears the count.
///
/// An attempt that gets no answer at all starts health checks between the attempts
/// (``ConnectionPolicy/healthCheckInterval``): the first that answers attempts at once.
///
/// An open socket can be deaf (docs/spec/sync.md §11.6): an echo of ours missing
/// ``ConnectionPolicy/echoTimeout`` after its 201, the echo check (after
/// ``ConnectionPolicy/echoCheckInterval`` without an event, ``ConnectionMachine+EchoCheck.swift``)
/// going unanswered, or — where the echo check cannot watch the socket — the delegate's light
/// REST check (every ``ConnectionPolicy/deafCheckInterval``) finding a message the socket should
/// have delivered, closes it and reconnects at once; the new socket's catch-up reads what it
/// missed. A fan-out that died and was healed by another client's socket leaves no sign at all,
/// so a while after an open socket delivers, the delegate re-reads the channels it delivered
/// into (``ConnectionPolicy/socketConfirmationDelay``, ``ConnectionMachine+SocketConfirmation.swift``).
struct ConnectionMachine: Sendable {
    let policy: ConnectionPolicy
    let random: @Sendable () -> Double

    private(set) var phase: Phase = .idle
    /// Whether REST polling runs (the socket is probed meanwhile).
    var polling = false
    /// Polls made in the current polling phase (sets the next interval).
    var polls = 0
    /// The number of the current or next reconnect attempt in this run (0: the run's first).
    var reconnect = 0
    /// Failed attempts (and connections that did not last) in a row.
    private(set) var failures = 0
    /// 429s in a row.
    private(set) var rateLimitRefusals = 0
    /// Whether the open connection has lasted ``ConnectionPolicy/stableConnection``.
    var stable = false
    /// The attempt under way, or whose socket is open.
    var currentAttempt: Int?
    /// Channels subscribed at runtime, in order, each once: re-sent on every socket.
    private(set) var channels: [ChannelID] = []
    /// The state observers last saw.
    private(set) var published: ConnectionState = .disconnected
    /// The health checks of the current outage (``ConnectionMachine+Health.swift``).
    var health = HealthChecks()
    /// What the echo checks found on this server (``ConnectionMachine+EchoCheck.swift``).
    var echoChecks = EchoChecks()
    private var attemptsStarted = 0
    private var timersStarted = 0
    private(set) var liveTimers: [ConnectionTimer.Kind: Int] = [:]

    /// A stopped machine; `random` draws the jitter (0…1).
    init(policy: ConnectionPolicy, random: @escaping @Sendable () -> Double) {
        self.policy = policy
        self.random = random
    }

    /// Handles one input: updates the state and returns the effects to run, in order.
    mutating func handle(_ input: ConnectionInput) -> [ConnectionEffect] {
        var effects: [ConnectionEffect] = []
        switch input {
        case .start: start(&effects)
        case .stop: stop(&effects)
        case .enterBackground: enterBackground(&effects)
        case .enterForeground: enterForeground(&effects)
        case .networkChanged: networkChanged(&effects)
        case .subscribe(let channelID): subscribe(channelID, &effects)
        case .timerFired(let timer): timerFired(timer, &effects)
        case .attemptSucceeded(let id): attemptSucceeded(id, &effects)
        case .attemptFailed(let id, let failure): attemptFailed(id, failure, &effects)
        case .connectionEnded(let id): connectionEnded(id, &effects)
        case .sessionEnded:
            if phase != .idle, !isFailed { fail(reason: "session ended", notify: true, &effects) }
        case .echoExpected(let messageID): echoExpected(messageID, &effects)
        case .echoSeen(let messageID):
            cancelTimer(.echo(messageID), &effects)
            socketDeliveredMessage(&effects)
        case .socketDeaf(let id):
            if phase == .connected, currentAttempt == id { socketIsDeaf(&effects) }
        case .socketHeard(let id, let checkEcho):
            socketHeard(id, checkEcho: checkEcho, &effects)
        case .healthChecked(let id, let outcome):
            healthChecked(id, outcome, &effects)
        }
        return effects
    }

    private var isFailed: Bool {
        if case .failed = phase { return true }
        return false
    }

    // MARK: - The app's calls

    private mutating func start(_ effects: inout [ConnectionEffect]) {
        guard phase == .idle || isFailed else { return }
        beginRun(&effects)
    }

    private mutating func stop(_ effects: inout [ConnectionEffect]) {
        guard phase != .idle else { return }
        halt(&effects)
        phase = .idle
        publish(.disconnected, &effects)
    }

    private mutating func enterBackground(_ effects: inout [ConnectionEffect]) {
        switch phase {
        case .idle, .background, .failed: return
        case .settling, .waiting, .attempting, .connected:
            halt(&effects)
            phase = .background
            publish(.disconnected, &effects)
            effects.append(.background)
        }
    }

    private mutating func enterForeground(_ effects: inout [ConnectionEffect]) {
        switch phase {
        case .background: beginRun(&effects)
        case .connected: effects.append(.catchUp(.foreground))
        case .waiting:
            cancelTimer(.retry, &effects)
            attemptNow(&effects)
        case .idle, .failed, .settling, .attempting: return
        }
    }

    private mutating func networkChanged(_ effects: inout [ConnectionEffect]) {
        switch phase {
        case .idle, .background, .failed: return
        case .settling, .waiting, .attempting, .connected:
            halt(&effects)
            resetRun()
            phase = .settling
            publish(.connecting, &effects)
            startTimer(.settle, after: policy.networkSettle, &effects)
        }
    }

    private mutating func subscribe(_ channelID: ChannelID, _ effects: inout [ConnectionEffect]) {
        if !channels.contains(channelID) { channels.append(channelID) }
        guard phase == .connected, let id = currentAttempt else { return }
        effects.append(.subscribe(channelID: channelID, connection: id))
        effects.append(.catchUp(.subscribed(channelID: channelID)))
        startTimer(.subscribeFollowUp(channelID), after: policy.followUpCatchUp, &effects)
    }

    // MARK: - Timers and outcomes

    private mutating func timerFired(_ timer: ConnectionTimer, _ effects: inout [ConnectionEffect]) {
        guard liveTimers[timer.kind] == timer.token else { return }
        liveTimers[timer.kind] = nil
        switch timer.kind {
        case .retry, .settle:
            let expected: Phase = timer.kind == .retry ? .waiting : .settling
            if phase == expected { attemptNow(&effects) }
        case .attemptDeadline:
            guard phase == .attempting, let id = currentAttempt else { return }
            effects.append(.close(id: id))  // its outcome, if it ever comes, is stale
            currentAttempt = nil
            rateLimitRefusals = 0
            recordFailure(forcePolling: false, minimumWait: nil, &effects)
        case .poll:
            pollTimerFired(&effects)
        case .stable:
            guard phase == .connected else { return }
            stable = true
            failures = 0
            reconnect = 0
            rateLimitRefusals = 0
        case .followUp:
            if phase == .connected { effects.append(.catchUp(.connectedFollowUp)) }
        case .subscribeFollowUp(let channelID):
            if phase == .connected { effects.append(.catchUp(.subscribedFollowUp(channelID: channelID))) }
        case .echo:
            if phase == .connected { socketIsDeaf(&effects) }
        case .deafCheck:
            deafCheckFired(&effects)
        case .echoCheck:
            echoCheckFired(&effects)
        case .echoCheckDeadline:
            echoCheckUnanswered(&effects)
        case .membershipWatch:
            membershipWatchFired(&effects)
        case .socketConfirmation:
            if phase == .connected { effects.append(.catchUp(.socketConfirmation)) }
        case .healthCheck:
            healthCheckTimerFired(&effects)
        }
    }

    private mutating func attemptSucceeded(_ id: Int, _ effects: inout [ConnectionEffect]) {
        guard phase == .attempting, currentAttempt == id else {
            effects.append(.close(id: id))  // a stale attempt: stopped, backgrounded, superseded, late
            return
        }
        cancelTimer(.attemptDeadline, &effects)
        endHealthChecks(&effects)
        phase = .connected
        stable = false
        rateLimitRefusals = 0
        polling = false
        cancelTimer(.poll, &effects)
        publish(.connected, &effects)
        effects.append(.opened(id: id, channels: channels))
        startTimer(.followUp, after: policy.followUpCatchUp, &effects)
        startTimer(.stable, after: policy.stableConnection, &effects)
        startWatchingSocket(&effects)
    }

    private mutating func attemptFailed(_ id: Int, _ failure: AttemptFailure, _ effects: inout [ConnectionEffect]) {
        guard phase == .attempting, currentAttempt == id else { return }
        currentAttempt = nil
        cancelTimer(.attemptDeadline, &effects)
        switch failure {
        case .sessionEnded:
            fail(reason: "session ended", notify: true, &effects)
        case .notLoggedIn:
            fail(reason: "not logged in", notify: false, &effects)
        case .rateLimited(let retryAfter):
            endHealthChecks(&effects)
            rateLimitRefusals += 1
            let wait = policy.rateLimitDelay(retryAfter: retryAfter, refusals: rateLimitRefusals)
            recordFailure(forcePolling: false, minimumWait: wait, &effects)
        case .unavailable:
            rateLimitRefusals = 0
            endHealthChecks(&effects)
            recordFailure(forcePolling: true, minimumWait: policy.probeDelay(unit: random()), &effects)
        case .unreachable:
            rateLimitRefusals = 0
            recordFailure(forcePolling: false, minimumWait: nil, &effects)
            beginHealthChecks(serverAway: true, &effects)
        case .other:
            rateLimitRefusals = 0
            endHealthChecks(&effects)
            recordFailure(forcePolling: false, minimumWait: nil, &effects)
        }
    }

    private mutating func connectionEnded(_ id: Int, _ effects: inout [ConnectionEffect]) {
        guard phase == .connected, currentAttempt == id else { return }  // we closed it ourselves
        currentAttempt = nil
        cancelConnectionTimers(&effects)
        if stable {
            stable = false
            reconnect = 1
            armPollingStart(&effects)
            scheduleAttempt(minimumWait: nil, &effects)
        } else {
            recordFailure(forcePolling: false, minimumWait: nil, &effects)
        }
        if phase == .waiting || phase == .attempting { beginHealthChecks(serverAway: false, &effects) }
    }

    // MARK: - Steps

    private mutating func beginRun(_ effects: inout [ConnectionEffect]) {
        resetRun()
        publish(.connecting, &effects)
        attemptNow(&effects)
    }

    private mutating func resetRun() {
        health.unsupported = false
        failures = 0
        reconnect = 0
        rateLimitRefusals = 0
        stable = false
    }

    mutating func attemptNow(_ effects: inout [ConnectionEffect]) {
        attemptsStarted += 1
        currentAttempt = attemptsStarted
        phase = .attempting
        effects.append(.attempt(id: attemptsStarted))
        startTimer(.attemptDeadline, after: policy.attemptTimeout, &effects)
    }

    /// One more failure: maybe start polling (or arm its start), then wait for the next attempt.
    private mutating func recordFailure(forcePolling: Bool, minimumWait: Duration?, _ effects: inout [ConnectionEffect]) {
        failures += 1
        reconnect += 1
        if !polling, forcePolling || failures >= policy.failuresBeforePolling {
            beginPolling(&effects)
        } else {
            armPollingStart(&effects)
        }
        scheduleAttempt(minimumWait: minimumWait, &effects)
    }

    /// Waits before attempt ``reconnect``: the backoff schedule (polling or not), or
    /// `minimumWait` (a rate limit, a 503) instead.
    mutating func scheduleAttempt(minimumWait: Duration?, _ effects: inout [ConnectionEffect]) {
        let wait = minimumWait ?? policy.reconnectDelay(attempt: reconnect, unit: random())
        if !polling { publish(.reconnecting(attempt: reconnect), &effects) }
        if wait <= .zero {
            attemptNow(&effects)
        } else {
            phase = .waiting
            startTimer(.retry, after: wait, &effects)
        }
    }

    private mutating func fail(reason: String, notify: Bool, _ effects: inout [ConnectionEffect]) {
        halt(&effects)
        phase = .failed(reason: reason)
        publish(.failed(reason: reason), &effects)
        if notify { effects.append(.sessionEnded) }
    }

    /// Closes the socket or abandons the attempt, cancels every timer, stops polling.
    private mutating func halt(_ effects: inout [ConnectionEffect]) {
        if let id = currentAttempt { effects.append(.close(id: id)) }
        currentAttempt = nil
        for kind in liveTimers.keys.sorted(by: { "\($0)" < "\($1)" }) { effects.append(.cancelTimer(kind)) }
        liveTimers = [:]
        polling = false
        stable = false
        health.endOutage()
    }

    mutating func cancelConnectionTimers(_ effects: inout [ConnectionEffect]) {
        let kinds = liveTimers.keys.filter {
            switch $0 {
            case .stable, .followUp, .subscribeFollowUp, .echo, .deafCheck, .echoCheck, .echoCheckDeadline, .membershipWatch,
                 .socketConfirmation:
                return true
            case .retry, .settle, .poll, .attemptDeadline, .healthCheck: return false
            }
        }
        for kind in kinds.sorted(by: { "\($0)" < "\($1)" }) { cancelTimer(kind, &effects) }
    }

    mutating func startTimer(_ kind: ConnectionTimer.Kind, after delay: Duration, _ effects: inout [ConnectionEffect]) {
        timersStarted += 1
        liveTimers[kind] = timersStarted
        effects.append(.startTimer(ConnectionTimer(kind: kind, token: timersStarted), after: delay))
    }

    mutating func cancelTimer(_ kind: ConnectionTimer.Kind, _ effects: inout [ConnectionEffect]) {
        if liveTimers.removeValue(forKey: kind) != nil { effects.append(.cancelTimer(kind)) }
    }

    mutating func publish(_ state: ConnectionState, _ effects: inout [ConnectionEffect]) {
        guard state != published else { return }
        published = state
        effects.append(.publish(state))
    }
}
