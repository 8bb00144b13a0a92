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
        /// run did (nothing of the run is written after its failure).
        func submit(_ writes: [ReceiveWrite]) -> CommitTicket { committer.submit(writes, run: id) }

        /// ``submit(_:)`` for a chunk its lane waits for at once (its last): when no commit
        /// runs, it is committed in the caller's task, alone, before this returns — no task to
        /// start and no thread to hand the result back to (a socket frame's whole commit).
        /// Otherwise it is queued as ``submit(_:)`` queues it.
        func commitLast(_ writes: [ReceiveWrite]) async -> CommitTicket { await committer.commitLast(writes, run: id) }

        /// Ends the run: its chunks are settled, nothing more is handed in.
        func end() { committer.end(id) }
    }

    private struct Waiting {
        let run: UInt64
        let writes: [ReceiveWrite]
        let ticket: CommitTicket
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
        /// The error of each run a failed transaction held, until the run ends.
        var failedRuns: [UInt64: any Error] = [:]
        var nextRun: UInt64 = 0
    }

    private let store: KeyStore
    private let clock: PhaseClock?
    private let state = Mutex(State())

    /// Commits into `store`, adding each transaction's time to `clock`'s commit phase when given.
    init(store: KeyStore, clock: PhaseClock? = nil) {
        self.store = store
        self.clock = clock
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
        if enqueue(entry) { Task { await drain() } }
        return entry.ticket
    }

    private func commitLast(_ writes: [ReceiveWrite], run: UInt64) async -> CommitTicket {
        let entry = Waiting(run: run, writes: writes, ticket: CommitTicket())
        guard enqueue(entry) else { return entry.ticket }
        // Only this chunk (first in the queue, which was empty): a cancelled caller fails its
        // own commit, never another run's.
        state.withLock { _ = $0.waiting.removeFirst() }
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

    /// Commits what is waiting, one transaction per round, until nothing is.
    private func drain() async {
        while true {
            let round: [Waiting] = state.withLock { state in
                let round = state.waiting
                state.waiting.removeAll()
                if round.isEmpty { state.committing = false }
                return round
            }
            guard !round.isEmpty else { return }
            await commit(round)
        }
    }

    /// Commits `round` in one transaction and settles its tickets.
    private func commit(_ round: [Waiting]) async {
        do {
            let started = ContinuousClock.now
            let results = try await store.storeReceiveBatch(round.flatMap(\.writes))
            clock?.add(ContinuousClock.now - started, to: .commit)
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
