@_spi(StoreInternals) import E2EEKeyStore
import Synchronization

/// Commits the chunks of a batch's lanes, in the order they are handed in. A chunk handed in
/// while no commit runs is committed at once; chunks handed in while one runs are committed
/// together in the next transaction (``KeyStore/storeReceiveBatch(_:)``: all of them or none).
/// A lane thus never waits for another lane's decryption, and under load a batch needs fewer
/// transactions (each has a fixed cost: its WAL frames, a sync, checkpoints).
///
/// Handing in is synchronous (``submit(_:)``), so a lane's chunks are committed in the order it
/// made them even when it does not wait for one before handing in the next. The lanes of one
/// batch handle disjoint devices, so their chunks never touch the same session or sender key.
/// A failed transaction fails every chunk in it and every chunk handed in after it, unwritten
/// (a lane's later chunk was decrypted on top of the failed one's states).
final class ChunkCommitter: Sendable {
    private struct Waiting {
        let writes: [ReceiveWrite]
        let ticket: CommitTicket
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
        var failure: (any Error)?
    }

    private let store: KeyStore
    private let clock: PhaseClock?
    private let state = Mutex(State())

    /// Commits into `store`, adding each transaction's time to `clock`'s commit phase when given.
    init(store: KeyStore, clock: PhaseClock? = nil) {
        self.store = store
        self.clock = clock
    }

    /// Queues `writes` for the next transaction (with whatever else is waiting by then); the
    /// ticket tells what happened to each, or throws the store's error when the transaction
    /// holding them failed (nothing of it is stored) or an earlier one did (nothing is written
    /// after a failure).
    func submit(_ writes: [ReceiveWrite]) -> CommitTicket {
        let ticket = CommitTicket()
        let start: Bool = state.withLock { state in
            if let failure = state.failure {
                ticket.fulfil(.failure(failure))
                return false
            }
            state.waiting.append(Waiting(writes: writes, ticket: ticket))
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        if start { Task { await drain() } }
        return ticket
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
                let failed: [Waiting] = state.withLock { state in
                    state.failure = error
                    state.committing = false
                    defer { state.waiting.removeAll() }
                    return state.waiting
                }
                for entry in round + failed { entry.ticket.fulfil(.failure(error)) }
                return
            }
        }
    }
}

/// What a commit handed to ``ChunkCommitter`` did, once it is done: the result per write, or the
/// transaction's error.
typealias CommitTicket = OneShot<[ReceiveWriteResult]>
