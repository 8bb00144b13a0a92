@_spi(StoreInternals) import E2EEKeyStore
import Synchronization

/// Commits the chunks lanes hand in, in the order they are handed in, for every batch of the
/// pipeline at once. A chunk handed in while no commit runs is committed at once (by a task of
/// its own, or, for a lane's last chunk, in the lane's task: ``Run/commitLast(_:)``); chunks
/// handed in while one runs — by lanes of the same batch or of batches of other channels
/// running at the same time — are committed together in the next transaction
/// (``KeyStore/storeReceiveBatch(_:)``: all of them or none). A lane thus never waits for
/// another lane's decryption, and under load fewer, larger transactions are written: each has a
/// fixed cost (its WAL frames, a sync, checkpoints), and a received row dirties a page of each
/// index on a random key (the server id, the envelope hash, the payload id), so rows committed
/// together share those pages' writes.
///
/// Handing in is synchronous (``Run/submit(_:)``), so a lane's chunks are committed in the order
/// it made them even when it does not wait for one before handing in the next. Chunks that can
/// share a transaction never touch the same session or sender key: lanes running at the same
/// time hold different devices' session locks, and a lane keeps its lock until its chunks are
/// committed.
///
/// Rows may also wait a little for others (issue 47, decision 2): the chunks waiting commit when
/// the ``CommitWindow``'s bounds say so — enough rows, the oldest waited long enough — or when
/// someone waits for one of them (a lane's last chunk, ``Run/commitLast(_:)``, or a lane that must
/// see its rows stored before it goes on) and fewer lanes still work than the process has cores
/// (lanes tell it: ``Run/laneStarted()``, ``Run/laneWaits()``; a batch's lanes count from when they
/// are spawned, ``Run/lanesQueued(_:)``, until each starts or waits for its device's lock). A last
/// chunk that would commit alone first lets the tasks ready to run go (`Task.yield`), so that the
/// catch-ups started beside it hand in first. On one core a lane that waits
/// thus lets the lanes still decrypting — of its batch, or of catch-ups side by side — add their
/// chunks to its transaction first, instead of starting a transaction for its own rows that
/// takes the core from them; with a core to spare the commit runs beside them. A lane that
/// works on without handing in (one waiting for the directory, say) holds the others back no
/// longer than the window. A lone frame on an idle connection is the only lane: it still
/// commits at once, in its own task. Nothing is told a row is
/// stored before the transaction holding it is: tickets are fulfilled after it.
///
/// A failure is scoped to the runs it touches (a run: the lanes of one batch, re-drive or
/// edit, ``Run``): a failed transaction fails every chunk in it, and every chunk those runs
/// hand in after it, unwritten (a lane's later chunk was decrypted on top of the failed one's
/// states); the chunks of other runs are committed as before.
final class ChunkCommitter: Sendable {
    /// The handle one run of lanes hands its chunks in with. Ending the run (``end()``) forgets
    /// its failure, if it had one.
    struct Run: Sendable {
        fileprivate let committer: ChunkCommitter
        fileprivate let id: UInt64

        /// Queues `writes` for the next transaction (with whatever else is waiting by then); the
        /// ticket tells what happened to each, or throws the store's error when the transaction
        /// holding them failed (nothing of it is stored) or one holding an earlier chunk of this
        /// run did (nothing of the run is written after its failure). The rows' plaintexts are
        /// sealed and their payload keys made first, in the caller's task (``KeyStore/sealAhead(_:)``),
        /// so that the one writer does not. `writes` is consumed: the caller hands over its only
        /// copy, sealed in place, never copied.
        func submit(_ writes: consuming [ReceiveWrite]) -> CommitTicket {
            committer.store.sealAhead(&writes)
            return committer.submit(writes, run: id)
        }

        /// ``submit(_:)`` for a chunk its lane waits for at once (its last): when no commit
        /// runs, it is committed in the caller's task, alone, before this returns — no task to
        /// start and no thread to hand the result back to (a socket frame's whole commit).
        /// Otherwise it is queued as ``submit(_:)`` queues it.
        func commitLast(_ writes: consuming [ReceiveWrite]) async -> CommitTicket {
            committer.store.sealAhead(&writes)
            return await committer.commitLast(writes, run: id)
        }

        /// Asks for the chunks waiting to commit now, without waiting out the window (a lane that
        /// stops on an error and must see its chunks settled at once).
        func urge() { committer.urge() }

        /// A lane of this run starts handing in chunks: until it ends, a transaction that some
        /// lane waits for also waits (within the window) while this one still works.
        func laneStarted() { committer.laneStarted() }

        /// `count` lanes of this run are queued to start (child tasks not yet running): until each
        /// starts (``queuedLaneStarted()``) or waits for its device's lock (``queuedLaneBlocked()``),
        /// it counts as a lane that works, so that a transaction waits for the rows it will hand in.
        func lanesQueued(_ count: Int) { committer.lanesQueued(count) }

        /// A lane queued with ``lanesQueued(_:)`` starts: ``laneStarted()`` for it.
        func queuedLaneStarted() { committer.queuedLaneStarted() }

        /// A lane queued with ``lanesQueued(_:)`` waits for its device's lock (held by a lane that
        /// may wait for this very commit): it no longer counts until it starts.
        func queuedLaneBlocked() { committer.queuedLaneBlocked() }

        /// The lane started with ``laneStarted()`` is done handing in.
        func laneEnded() { committer.laneEnded() }

        /// The lane waits for its chunks' commits from now on (``laneStopsWaiting()`` undoes it):
        /// once every lane in flight waits, what waits commits without waiting out the window.
        func laneWaits() { committer.laneWaits(true) }

        /// The lane works again after ``laneWaits()``.
        func laneStopsWaiting() { committer.laneWaits(false) }

        /// Ends the run: its chunks are settled, nothing more is handed in.
        func end() { committer.end(id) }
    }

    private struct Waiting {
        let run: UInt64
        let writes: [ReceiveWrite]
        let ticket: CommitTicket
        /// When it was handed in (the window counts from the oldest waiting chunk).
        var handedIn = ContinuousClock.now
        /// Its lane waits for it (its last chunk): it commits without waiting out the window.
        var awaited = false
    }

    private struct State {
        var waiting: [Waiting] = []
        /// A commit runs, or a task waits in the window to start one: the queue is owned.
        var committing = false
        /// A lane waits for a waiting chunk (``Run/urge()``, or a row bound reached): the next
        /// transaction starts without waiting out the window.
        var urgent = false
        /// The task waiting in the window, resumed early when the window closes sooner.
        var windowWaiter: CheckedContinuation<Void, Never>?
        /// When the one timer task running resumes the window's waiter, if one runs: a waiter
        /// woken early to decide again (a lane started waiting) and back in the window reuses it
        /// rather than starting another.
        var timerDeadline: ContinuousClock.Instant?
        /// Lanes started and not ended (``Run/laneStarted()``), and how many of them wait for
        /// their commits: when all of them wait, nobody is about to hand in more, so a
        /// transaction someone waits for starts at once.
        var lanes = 0
        var waitingLanes = 0
        /// Lanes spawned and not yet started or blocked on their device's lock: they are about to
        /// hand in, so they count as working.
        var queuedLanes = 0
        /// Transactions committed so far.
        var committed = 0
        /// The error of each run a failed transaction held, until the run ends.
        var failedRuns: [UInt64: any Error] = [:]
        var nextRun: UInt64 = 0

        /// The cores the process may use: a commit started while fewer lanes than this still work
        /// takes a core that would otherwise idle.
        let cores: Int

        /// Whether the waiting chunks are to commit without waiting out the window: a lane asked
        /// for it (``urgent``), or someone waits for them — a lane waits for its commits, or a
        /// last chunk was handed in — and fewer lanes still work than there are cores. On one
        /// core that is when no lane works, so nothing more is about to be handed in; on more,
        /// the commit runs beside the lanes that still decrypt.
        var waitedFor: Bool {
            if urgent { return true }
            guard lanes - waitingLanes + queuedLanes < cores else { return false }
            return waitingLanes > 0 || waiting.contains(where: \.awaited)
        }
    }

    private let store: KeyStore
    private let clock: PhaseClock?
    private let window: CommitWindow
    private let windowWaits: (@Sendable () -> Void)?
    private let state: Mutex<State>

    /// Commits into `store` within `window`'s bounds, adding each transaction's time to `clock`'s
    /// commit phase when given, on a process that may use `cores` cores. `windowWaits` is told
    /// each time a chunk is handed in to wait for its transaction after an earlier transaction
    /// committed (a test's crash point).
    init(store: KeyStore, clock: PhaseClock? = nil, window: CommitWindow = .standard, cores: Int = UsableCores.count,
         windowWaits: (@Sendable () -> Void)? = nil) {
        self.state = Mutex(State(cores: max(1, cores)))
        self.store = store
        self.clock = clock
        self.window = window
        self.windowWaits = windowWaits
    }

    /// A new run's handle.
    func startRun() -> Run {
        let id = state.withLock { state in
            defer { state.nextRun += 1 }
            return state.nextRun
        }
        return Run(committer: self, id: id)
    }

    private func end(_ run: UInt64) {
        state.withLock { _ = $0.failedRuns.removeValue(forKey: run) }
    }

    private func submit(_ writes: [ReceiveWrite], run: UInt64) -> CommitTicket {
        let entry = Waiting(run: run, writes: writes, ticket: CommitTicket())
        if enqueue(entry) {
            Task { await drain() }
        } else if state.withLock({ $0.waiting.reduce(0) { $0 + $1.writes.count } >= window.maxRows }) {
            urge()  // the row bound is reached: no need to wait out the window
        }
        if let windowWaits, state.withLock({ $0.committed > 0 }) { windowWaits() }
        return entry.ticket
    }

    private func commitLast(_ writes: [ReceiveWrite], run: UInt64) async -> CommitTicket {
        let entry = Waiting(run: run, writes: writes, ticket: CommitTicket(), awaited: true)
        guard enqueue(entry) else {
            wakeWindow()  // queued behind a commit or in the window: its lane waits for it
            return entry.ticket
        }
        // Tasks ready to run go first: on a busy core, batches started beside this one (a round
        // of catch-ups) hand their chunks in to this transaction instead of each writing its own.
        // On an idle process nothing is ready, and the chunk commits at once as before.
        await Task.yield()
        // Other lanes still work, or chunks came in meanwhile: the chunk waits in the window for
        // theirs, or commits with them.
        let alone: Bool = state.withLock { state in
            guard state.waitedFor, state.waiting.count == 1 else { return false }
            // Only this chunk (first in the queue, which was empty): a cancelled caller fails
            // its own commit, never another run's.
            state.waiting.removeFirst()
            return true
        }
        guard alone else {
            Task { await drain() }
            return entry.ticket
        }
        await commit([entry])
        let more: Bool = state.withLock { state in
            if state.waiting.isEmpty { state.committing = false }
            return !state.waiting.isEmpty
        }
        if more { Task { await drain() } }
        return entry.ticket
    }

    /// Queues `entry` unless its run failed (its ticket then fails at once); returns whether the
    /// caller is to commit it, no commit running until now. The queue is empty whenever no
    /// commit runs, so `entry` is then first in it.
    private func enqueue(_ entry: Waiting) -> Bool {
        state.withLock { state in
            if let failure = state.failedRuns[entry.run] {
                entry.ticket.fulfil(.failure(failure))
                return false
            }
            state.waiting.append(entry)
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
    }

    /// Asks for the waiting chunks to commit without waiting out the window.
    private func urge() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else { return nil }
            state.urgent = true
            defer { state.windowWaiter = nil }
            return state.windowWaiter
        }
        waiter?.resume()
    }

    private func laneStarted() {
        state.withLock { $0.lanes += 1 }
    }

    private func lanesQueued(_ count: Int) {
        state.withLock { $0.queuedLanes += count }
    }

    private func queuedLaneStarted() {
        state.withLock { state in
            state.queuedLanes -= 1
            state.lanes += 1
        }
    }

    private func queuedLaneBlocked() {
        state.withLock { $0.queuedLanes -= 1 }
        wakeWindow()  // the lanes left may all be waiting
    }

    private func laneEnded() {
        state.withLock { $0.lanes -= 1 }
        wakeWindow()  // the lanes left may all be waiting
    }

    private func laneWaits(_ waits: Bool) {
        state.withLock { $0.waitingLanes += waits ? 1 : -1 }
        if waits { wakeWindow() }
    }

    /// Resumes the task waiting in the window, if one does, to decide again.
    private func wakeWindow() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            defer { state.windowWaiter = nil }
            return state.windowWaiter
        }
        waiter?.resume()
    }

    /// Commits what is waiting, one transaction per round (within the window's bounds), until
    /// nothing is.
    private func drain() async {
        while true {
            let next: (round: [Waiting], wait: ContinuousClock.Instant?) = state.withLock { state in
                guard let oldest = state.waiting.first?.handedIn else {
                    state.committing = false
                    state.urgent = false
                    return ([], nil)
                }
                let rows = state.waiting.reduce(0) { $0 + $1.writes.count }
                switch window.decide(rows: rows, oldest: oldest, awaited: state.waitedFor, now: .now) {
                case .wait(let deadline):
                    return ([], deadline)
                case .commitNow:
                    let count = window.take(state.waiting.map(\.writes.count))
                    let round = Array(state.waiting.prefix(count))
                    state.waiting.removeFirst(count)
                    state.urgent = false  // what is left decides again: its bounds, its waiters
                    return (round, nil)
                }
            }
            if let deadline = next.wait {
                await waitInWindow(until: deadline)
                continue
            }
            guard !next.round.isEmpty else { return }
            await commit(next.round)
        }
    }

    /// Waits until `deadline`, or until ``urge()`` ends the window sooner.
    private func waitInWindow(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (closed, startsTimer): (Bool, Bool) = state.withLock { state in
                if state.waitedFor { return (true, false) }
                state.windowWaiter = continuation
                // A timer that fires no later already runs: it resumes this waiter, which decides again.
                if let running = state.timerDeadline, running <= deadline { return (false, false) }
                state.timerDeadline = deadline
                return (false, true)
            }
            if closed {
                continuation.resume()
                return
            }
            guard startsTimer else { return }
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                let waiter: CheckedContinuation<Void, Never>? = self.state.withLock { state in
                    if state.timerDeadline == deadline { state.timerDeadline = nil }
                    defer { state.windowWaiter = nil }
                    return state.windowWaiter
                }
                waiter?.resume()
            }
        }
    }

    /// Commits `round` in one transaction and settles its tickets.
    private func commit(_ round: [Waiting]) async {
        do {
            let started = ContinuousClock.now
            // A lone chunk (a frame's, nearly always) is written as it was handed in, not copied.
            let writes = round.count == 1 ? round[0].writes : round.flatMap(\.writes)
            let results = try await store.storeReceiveBatch(writes)
            clock?.addCommit(ContinuousClock.now - started, writes: writes.count)
            state.withLock { $0.committed += 1 }
            var offset = 0
            for entry in round {
                entry.ticket.fulfil(.success(Array(results[offset..<offset + entry.writes.count])))
                offset += entry.writes.count
            }
        } catch {
            // The runs this transaction held fail, with the chunks they queued meanwhile;
            // the other runs' waiting chunks go into the next round.
            let failed: [Waiting] = state.withLock { state in
                for entry in round { state.failedRuns[entry.run] = error }
                let failed = state.waiting.filter { state.failedRuns[$0.run] != nil }
                state.waiting.removeAll { state.failedRuns[$0.run] != nil }
                return failed
            }
            for entry in round + failed { entry.ticket.fulfil(.failure(error)) }
        }
    }
}

/// What a commit handed to ``ChunkCommitter`` did, once it is done: the result per write, or the
/// transaction's error.
typealias CommitTicket = OneShot<[ReceiveWriteResult]>
