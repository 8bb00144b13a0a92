import Foundation

/// Keeps one account's realtime connection alive (docs/spec/sync.md "Connection"): at most one socket,
/// a fresh ticket for every attempt, backoff with jitter, REST polling when the socket keeps
/// failing, and the app's lifecycle hooks. The decisions are `ConnectionMachine`'s; this actor
/// runs its effects (tickets, sockets, timers) and feeds the outcomes back.
///
/// The delegate is called one call at a time, in order: when a socket opens, its channels are
/// subscribed and a catch-up (`.connected`) runs before any of its events is handed over, and a
/// second catch-up follows ``ConnectionPolicy/followUpCatchUp`` later (docs/spec/server-api.md §6). A malformed
/// frame is reported through ``ConnectionDelegate/inputRefused(reason:)`` and never ends the
/// stream. Keepalive is the transport's: a dead socket ends with `connectionLost`, handled
/// like any lost connection.
///
/// Call ``stop()`` before letting go of a supervisor: its timers and its socket keep it running.
package actor ConnectionSupervisor {
    /// The channel id of this supervisor's echo checks (docs/spec/sync.md §11.6): random, made
    /// once, subscribed on every socket; no channel has it, so its `typing.stop` reaches only
    /// this user's sockets and its echo is taken off the stream before the delegate.
    nonisolated let echoCheckChannel = ChannelID(UUID().uuidString)
    let api: any ChatServerAPI
    let connector: any RealtimeConnecting
    let sleep: @Sendable (Duration) async throws -> Void
    let policy: ConnectionPolicy
    var machine: ConnectionMachine
    weak var delegate: (any ConnectionDelegate)?
    let broadcaster = ConnectionStateBroadcaster()
    let lane: AsyncStream<DelegateCall>.Continuation
    private var laneInput: AsyncStream<DelegateCall>?
    /// Hands the delegate queue's calls over, one at a time.
    private var laneTask: Task<Void, Never>?
    private var timerTasks: [ConnectionTimer.Kind: Task<Void, Never>] = [:]
    var attemptTasks: [Int: Task<Void, Never>] = [:]
    private var closingTasks: [Int: Task<Void, Never>] = [:]
    private var backgroundNotice: Task<Void, Never>?
    var connections: [Int: any RealtimeConnection] = [:]
    var pumps: [Int: Task<Void, Never>] = [:]
    var pollQueued = false
    /// Socket events and frame reports waiting in the delegate queue.
    let queuedEvents = QueuedEvents()

    /// How many socket events and frame reports wait for the delegate now (tests).
    package nonisolated var queuedEventCount: Int { queuedEvents.waiting }
    /// When each open socket opened (for the delegate's deaf-socket check).
    var openedAt: [Int: ContinuousClock.Instant] = [:]
    /// The ids of the messages the sockets delivered last (an echo may beat its 201).
    var recentlyDelivered = RecentMessageIDs(capacity: 512)

    /// A stopped supervisor for the account whose REST client is `api`.
    /// - Parameters:
    ///   - api: the account's REST client (tickets, catch-up reads).
    ///   - connector: opens sockets.
    ///   - policy: durations and counts (tests shrink them).
    ///   - sleep: waits a duration (a test passes a manual clock's).
    ///   - random: draws the jitter, 0…1 (a test passes a fixed value).
    public init(
        api: any ChatServerAPI,
        connector: any RealtimeConnecting,
        policy: ConnectionPolicy = .standard,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.api = api
        self.connector = connector
        self.policy = policy
        self.sleep = sleep
        self.machine = ConnectionMachine(policy: policy, random: random)
        (laneInput, lane) = AsyncStream.makeStream(of: DelegateCall.self)
    }

    deinit {
        lane.finish()
        broadcaster.finish()
    }

    // MARK: - Observing

    /// Every state change: a new stream starts with the current state, then every change in
    /// order. Each subscriber gets all of them.
    public nonisolated var states: AsyncStream<ConnectionState> { broadcaster.subscribe() }

    /// The current state (the last one published).
    public nonisolated var state: ConnectionState { broadcaster.current }

    // MARK: - The app's calls

    /// Sets the delegate (held weakly). Set it before ``start()``: calls made without one are
    /// dropped.
    package func setDelegate(_ delegate: any ConnectionDelegate) {
        self.delegate = delegate
        startLaneIfNeeded()
    }

    /// Starts connecting (`.connecting`). Does nothing unless stopped, never started or failed.
    public func start() {
        startLaneIfNeeded()
        apply(.start)
    }

    /// Closes the socket, cancels every timer and stops polling (`.disconnected`); returns once
    /// the socket's close was sent.
    public func stop() async {
        apply(.stop)
        await finishClosing()
    }

    /// Stops for good (the account shuts down): as ``stop()``, then the delegate queue ends —
    /// the call being delivered (a catch-up, an event) is cancelled and awaited, the calls still
    /// waiting are dropped — and the socket pumps and attempts are cancelled and awaited, so
    /// nothing this supervisor started touches the account's store once it returns.
    package func shutDown() async {
        apply(.stop)
        await finishClosing()
        lane.finish()
        let running = [laneTask].compactMap { $0 } + Array(pumps.values) + Array(attemptTasks.values)
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    /// Closes the socket cleanly (`.disconnected`), waits for its last events to be handed over
    /// (at most ``ConnectionPolicy/closeDrainLimit``), then calls
    /// ``ConnectionDelegate/willDisconnectForBackground()`` and returns when it has.
    public func enterBackground() async {
        apply(.enterBackground)
        if let notice = backgroundNotice {
            backgroundNotice = nil
            await notice.value
        }
    }

    /// Reconnects after the background, with the catch-up; when the socket is still open, only
    /// catches up (`.foreground`); when waiting to retry, retries now.
    public func enterForeground() {
        apply(.enterForeground)
    }

    /// The network changed: closes the socket, waits ``ConnectionPolicy/networkSettle``, then
    /// reconnects (a new run, with the catch-up). Ignored while stopped or backgrounded.
    public func networkChanged() {
        apply(.networkChanged)
    }

    /// Subscribes `channelID` now (when connected, followed by a catch-up of that channel now and
    /// one more after ``ConnectionPolicy/followUpCatchUp``) and on every socket from now on.
    public func subscribe(channelID: ChannelID) {
        apply(.subscribe(channelID: channelID))
    }

    /// Sends `typing.start` / `typing.stop` on the open socket.
    /// - Throws: ``ServerError/transport(_:)`` when no socket is open or it closed meanwhile.
    public func sendTyping(channelID: ChannelID, started: Bool) async throws {
        guard machine.phase == .connected, let id = machine.currentAttempt, let connection = connections[id] else {
            throw ServerError.transport("not connected")
        }
        try await connection.sendTyping(channelID: channelID, started: started)
    }

    // MARK: - Running the machine

    /// Hands `input` to the machine and runs the effects it returns, in order.
    func apply(_ input: ConnectionInput) {
        for effect in machine.handle(input) { perform(effect) }
    }

    private func perform(_ effect: ConnectionEffect) {
        switch effect {
        case .publish(let state):
            broadcaster.publish(state)
        case .startTimer(let timer, let delay):
            timerTasks[timer.kind]?.cancel()
            let sleep = self.sleep
            timerTasks[timer.kind] = Task {
                do { try await sleep(delay) } catch { return }
                self.timerFired(timer)
            }
        case .cancelTimer(let kind):
            timerTasks.removeValue(forKey: kind)?.cancel()
        case .attempt(let id):
            attemptTasks[id] = Task { await self.runAttempt(id) }
        case .close(let id):
            attemptTasks.removeValue(forKey: id)?.cancel()
            openedAt[id] = nil
            if let connection = connections.removeValue(forKey: id) {
                closingTasks[id] = Task {
                    await connection.close()
                    self.closed(id)
                }
            }
        case .opened(let id, let channels):
            guard let connection = connections[id] else { return }
            openedAt[id] = .now
            if machine.echoChecksWatch {
                // Directly, not behind the delegate queue: the check must find it subscribed.
                let channel = echoCheckChannel
                Task { try? await connection.subscribe(channelID: channel) }
            }
            lane.yield(.opened(connection, channels: channels))
            startPump(id, connection)
        case .subscribe(let channelID, let id):
            if let connection = connections[id] { lane.yield(.subscribe(connection, channelID: channelID)) }
        case .catchUp(let reason):
            lane.yield(.catchUp(reason))
        case .checkSocket(let id):
            if let opened = openedAt[id] { lane.yield(.checkSocket(connection: id, openedAt: opened)) }
        case .sendEchoCheck(let id):
            // A socket that closed meanwhile fails the send; its `closed` update follows.
            guard let connection = connections[id] else { return }
            let channel = echoCheckChannel
            Task { try? await connection.sendTyping(channelID: channel, started: false) }
        case .watchMembership:
            lane.yield(.watchMembership)
        case .checkHealth(let id):
            let api = self.api
            Task {
                let outcome = await HealthCheckOutcome(checking: api)
                self.apply(.healthChecked(id: id, outcome))
            }
        case .poll:
            guard !pollQueued else { return }
            pollQueued = true
            lane.yield(.poll)
        case .sessionEnded:
            lane.yield(.sessionEnded)
        case .background:
            backgroundNotice = makeBackgroundNotice(draining: Array(pumps.values))
        }
    }

    private func timerFired(_ timer: ConnectionTimer) {
        timerTasks[timer.kind] = nil
        apply(.timerFired(timer))
    }

    private func closed(_ id: Int) {
        closingTasks[id] = nil
    }

    private func finishClosing() async {
        for task in Array(closingTasks.values) { await task.value }
    }

    private func startLaneIfNeeded() {
        guard let input = laneInput else { return }
        laneInput = nil
        laneTask = Task { [weak self] in
            for await call in input {
                guard let self, !Task.isCancelled else { return }
                await self.deliver(call)
            }
        }
    }
}
