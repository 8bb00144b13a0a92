@_spi(StoreInternals) import E2EEKeyStore
import Synchronization

/// Everything about the receive path's throughput, in one place: which calls run at the same
/// time, the lanes' tasks and locks, whether a batch's planned key states still hold, the
/// commits lanes share, and where the time goes. The protocol work itself — the plan, the pure
/// steps, the writes — knows nothing of it.
///
/// The races it handles, and how:
/// 1. **One message id in two batches at once** (a socket frame and a catch-up page carrying the
///    same message): a batch claims its ids (``PipelineAdmission``); a batch holding any of them
///    waits, then plans after the first stored it, and finds it known.
/// 2. **Two batches of one channel**: one at a time, in arrival order, so a channel's batches
///    run in the order they were made. Batches of different channels overlap.
/// 3. **Edits, deletes and re-drives against batches**: they claim the whole path (exclusive).
/// 4. **Starvation**: calls start in arrival order; one that must wait holds back every later
///    one, so an exclusive call is never starved by a stream of batches.
/// 5. **Two lanes of one sender device** (overlapping batches of different channels, a re-drive,
///    a send advancing the same pairwise session): each lane holds the device's session lock of
///    the account's ``KeyedAsyncLock`` — the table the sending side locks too.
/// 6. **Planned key states moved on**: a batch plans with the sender-key states the store held
///    when it started; a lane whose device had a lane of another batch run since
///    (``LaneGenerations``) drops the planned states and reads the store under its lock.
/// 7. **Lanes committing at the same time**, of one batch or of batches of different channels:
///    their chunks go to the pipeline's one ``ChunkCommitter``, which merges the chunks that wait
///    into the next transaction, letting them wait for more within the ``CommitWindow``'s bounds; a failed transaction fails its chunks and every later one of
///    the runs it held, unwritten, and the lanes that handed them in throw; other runs go on.
/// 8. **Cancellation**: a lane stops between messages; committed chunks stay, the rest is redone
///    by the next call (it finds them new, or pending).
/// 9. **A key that releases another device's rows** (our own device's message settling a DM
///    request releases the other user's waiting messages): the lane that installed it hands
///    them back instead of decrypting them outside their device's lock; they run next, each in
///    its own device's lane.
final class ReceiveScheduler: Sendable {
    private let admission = Mutex(PipelineAdmission<CheckedContinuation<Void, Never>>())
    private let generations = LaneGenerations()
    /// Where the time went (``ReceivePhaseTimes``).
    let clock: PhaseClock
    /// The account's protocol-state locks (shared with the sending side).
    let locks: KeyedAsyncLock
    /// Commits every run's chunks, merging those that wait (race 7).
    private let committer: ChunkCommitter

    /// A scheduler locking sender devices in `locks` and committing into `store` within
    /// `window` (`windowWaits`: told when a chunk is handed in after an earlier transaction committed).
    init(locks: KeyedAsyncLock, store: KeyStore, window: CommitWindow = .standard, windowWaits: (@Sendable () -> Void)? = nil) {
        let clock = PhaseClock()
        self.clock = clock
        self.locks = locks
        self.committer = ChunkCommitter(store: store, clock: clock, window: window, windowWaits: windowWaits)
    }

    /// Runs `work` once `claim` is admitted (races 1–4), and ends the claim when it returns or throws.
    func admitted<Result: Sendable>(_ claim: AdmissionClaim, _ work: () async throws -> Result) async throws -> Result {
        await admit(claim)
        defer { release(claim) }
        return try await work()
    }

    /// The lane generations now, taken before a batch's plan reads the store (race 6).
    func generationSnapshot() -> [String: UInt64] { generations.snapshot() }

    /// A new run's handle on the committer (race 7); the caller ends it once its lanes are done.
    func startCommitRun() -> ChunkCommitter.Run { committer.startRun() }

    /// Runs each lane on its own task (a single lane in the caller's), holding its device's lock
    /// (race 5); `lane`'s planned keys (read under `plannedUnder`) are used by a lane only while
    /// no other lane of its device ran since (race 6). Pending rows of another device that a lane
    /// released (race 9) run next, in lanes of their own devices, for at most
    /// ``handOverRounds`` rounds (what is left stays pending for the next re-drive). Returns
    /// every lane's outcomes.
    /// - Throws: the first lane's error (store errors, cancellation); the other lanes finish first.
    func runLanes(_ lanes: [[IncomingMessage]], with lane: ReceiveLane, plannedUnder: [String: UInt64] = [:]) async throws -> [ReceiveOutcome] {
        var all: [ReceiveOutcome] = []
        var round = lanes
        var planned = plannedUnder
        var runner = lane
        for _ in 0...Self.handOverRounds where !round.isEmpty {
            let active = round.filter { !$0.isEmpty }
            let runs: [ReceiveLane.Run]
            if active.count == 1 {
                // One lane (a socket frame, a DM's page): run in this task; a child task would
                // only add two thread hops.
                runs = [try await locked(runner, active[0], plannedUnder: planned)]
            } else {
                // The lanes count as working from now (ChunkCommitter), not from when their tasks
                // first run: a lane of this batch that finishes first then waits for the others.
                runner.committer.lanesQueued(active.count)
                runs = try await withThrowingTaskGroup(of: ReceiveLane.Run.self) { [runner, planned] group in
                    for messages in active {
                        group.addTask { try await self.locked(runner, messages, plannedUnder: planned, queued: true) }
                    }
                    var runs: [ReceiveLane.Run] = []
                    for try await run in group { runs.append(run) }
                    return runs
                }
            }
            all += runs.flatMap(\.outcomes)
            round = Self.lanes(of: runs.flatMap(\.handedOver))
            // Released rows are re-driven from the store's states, never from the batch's plan.
            runner.plannedKeys = [:]
            planned = [:]
        }
        return all
    }

    /// Rounds of released rows one call runs after its own lanes.
    static let handOverRounds = 4

    /// `rows` as lanes: per device, each row once, in `(created_at, id)` order.
    private static func lanes(of rows: [IncomingMessage]) -> [[IncomingMessage]] {
        var seen: Set<String> = []
        let unique = rows.filter { seen.insert($0.id).inserted }
        return Dictionary(grouping: unique, by: \.laneKey).values.map {
            $0.sorted { ($0.createdAt.microseconds, $0.id) < ($1.createdAt.microseconds, $1.id) }
        }
    }

    /// Runs one lane holding the session lock of its device (the lane key), without its planned
    /// keys when another lane of the device ran since they were read, and counts it.
    private func locked(_ lane: ReceiveLane, _ messages: [IncomingMessage], plannedUnder: [String: UInt64],
                        queued: Bool = false) async throws -> ReceiveLane.Run {
        guard let key = messages.first?.laneKey else { return try await lane.run(messages, queued: queued) }
        let generations = generations
        let committer = lane.committer
        return try await locks.withLock(LockKeys.session(DeviceID(stored: key)), whenItWaits: {
            if queued { committer.queuedLaneBlocked() }
        }, { waited in
            defer { generations.bump(key) }
            var lane = lane
            if !lane.plannedKeys.isEmpty, !generations.unchanged(key, since: plannedUnder) { lane.plannedKeys = [:] }
            return try await lane.run(messages, queued: queued && !waited)
        })
    }

    private func admit(_ claim: AdmissionClaim) async {
        if admission.withLock({ $0.tryStart(claim) }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = admission.withLock { admission in
                if admission.tryStart(claim) { return true }
                admission.enqueue(claim, continuation)
                return false
            }
            if started { continuation.resume() }
        }
    }

    private func release(_ claim: AdmissionClaim) {
        for waiter in admission.withLock({ $0.finish(claim) }) { waiter.resume() }
    }
}
