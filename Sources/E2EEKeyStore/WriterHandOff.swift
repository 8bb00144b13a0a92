import GRDB
import Synchronization

/// Runs the receive path's accesses to the writer connection without a thread hand-off when it
/// can: on the calling thread while no other access that goes through it is in flight, through
/// GRDB's async access otherwise.
///
/// GRDB's async access hands the task to the writer's dispatch queue and the result back to the
/// task's executor: two thread wake-ups per access. A socket frame's batch makes two accesses
/// (its lookup and its commit), and those wake-ups cost it more CPU than its SQL (measured on
/// the Ingest benchmark's frames: 12 context switches and 4.4 wake-ups a frame on two cores).
/// When no other access is in flight the writer's queue is free, so a synchronous access runs
/// its work at once on the caller's thread; when one is, the caller suspends as before instead
/// of blocking its thread behind it. An access that does not come through here (a maintenance
/// write, say) can still hold the queue; a synchronous access then waits for it, at most one
/// transaction long.
final class WriterHandOff: Sendable {
    private let writer: any DatabaseWriter
    /// Accesses through here in flight, synchronous or not.
    private let inFlight = Atomic<Int>(0)

    /// Hands off to `writer`.
    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `work` on the writer connection outside a transaction (the work opens its own).
    /// - Throws: `CancellationError` when the task is cancelled before it starts (as GRDB's
    ///   async access), what `work` throws, GRDB's errors.
    func run<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        if inFlight.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            defer { inFlight.subtract(1, ordering: .releasing) }
            return try runHere(work)
        }
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .releasing) }
        return try await writer.writeWithoutTransaction(work)
    }

    /// Runs `work` in one transaction on the writer connection (committed when it returns,
    /// rolled back when it throws).
    /// - Throws: what `work` throws, GRDB's errors.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await run { db in
            var result: T?
            try db.inTransaction {
                result = try work(db)
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "transaction ended without a result") }
            return result
        }
    }

    /// GRDB's synchronous access: the writer's serial queue runs `work` on this thread.
    private func runHere<T>(_ work: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction(work)
    }
}
