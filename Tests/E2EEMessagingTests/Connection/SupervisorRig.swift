import E2EETestSupport
import E2EEMessaging
import Testing

/// A supervisor wired to fakes of the server and the socket, a manual clock and a fixed jitter
/// draw (0.5: no jitter), with its states recorded.
final class SupervisorRig: Sendable {
    /// Distinct durations so a test can tell the timers apart by length.
    /// No quick retries, polling only after five failures, no deaf-socket checks and no
    /// membership watch: the timers
    /// stay few and distinct (the schedule's own tests are the machine's).
    static let policy = ConnectionPolicy(
        backoffBase: .seconds(1),
        quickRetries: 0,
        backoffCap: .seconds(30),
        pollInterval: .seconds(45),
        firstPollInterval: .seconds(45),
        pollingStart: nil,
        echoTimeout: .seconds(11),
        echoCheckInterval: nil,
        deafCheckInterval: nil,
        membershipWatchInterval: nil,
        stableConnection: .seconds(600),
        networkSettle: .milliseconds(300),
        followUpCatchUp: .milliseconds(700),
        attemptTimeout: .seconds(90),
        closeDrainLimit: .seconds(5)
    )

    let clock = ManualClock()
    let server = FakeTicketServer()
    let connector = FakeConnector()
    let delegate: RecordingDelegate
    let supervisor: ConnectionSupervisor
    /// Every state published, from the initial one.
    let states = Watched<[ConnectionState]>([])
    private let recorder: Task<Void, Never>

    init(channels: [ChannelID] = [], policy: ConnectionPolicy = SupervisorRig.policy) async {
        let clock = self.clock
        delegate = RecordingDelegate(channels: channels)
        supervisor = ConnectionSupervisor(
            api: server, connector: connector, policy: policy,
            sleep: { try await clock.sleep($0) }, random: { 0.5 }
        )
        let stream = supervisor.states
        let states = self.states
        recorder = Task {
            for await state in stream { states.update { $0.append(state) } }
        }
        await supervisor.setDelegate(delegate)
    }

    /// The supervisor's current state.
    var state: ConnectionState { supervisor.state }

    /// Waits until the current state is `state`.
    @discardableResult
    func waitFor(_ state: ConnectionState, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let reached = await states.wait { $0.last == state }
        if !reached { Issue.record("state \(state) not reached; states: \(states.value)", sourceLocation: sourceLocation) }
        return reached
    }

    /// Waits until `count` sockets were opened and returns the last.
    func socket(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> FakeConnection? {
        guard await connector.opened.wait(until: { $0.count >= count }) else {
            Issue.record("socket \(count) never opened", sourceLocation: sourceLocation)
            return nil
        }
        return connector.opened.value[count - 1]
    }

    /// Waits until the delegate's calls satisfy `condition`.
    @discardableResult
    func waitForCalls(sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable ([RecordingDelegate.Call]) -> Bool) async -> Bool {
        let met = await delegate.calls.wait(until: condition)
        if !met { Issue.record("delegate calls never matched; calls: \(delegate.calls.value)", sourceLocation: sourceLocation) }
        return met
    }

    /// Waits until `count` socket events wait in the delegate queue.
    func waitForQueued(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        for _ in 0..<2_000 {
            if supervisor.queuedEventCount == count { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("\(count) events never queued; \(supervisor.queuedEventCount) are", sourceLocation: sourceLocation)
    }

    /// Waits for a sleep of `duration` to be pending, then moves the clock by it.
    func fire(_ duration: Duration, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard await clock.waitForSleep(duration) else {
            Issue.record("no \(duration) timer; pending: \(clock.pending.value)", sourceLocation: sourceLocation)
            return
        }
        clock.advance(by: duration)
    }

    /// Stops the supervisor and the recorder.
    func finish() async {
        await supervisor.stop()
        recorder.cancel()
    }
}
