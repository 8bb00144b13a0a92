import GRDB
import Synchronization

/// Every access the key store makes to its writer connection, counted, so that the receive
/// path's can run without a thread hand-off when they can: on the calling thread while no other
/// access is in flight, through GRDB's async access otherwise.
///
/// GRDB's async access hands the task to the writer's dispatch queue and the result back to the
/// task's executor: two thread wake-ups per access. A socket frame's batch makes two accesses
/// (its lookup and its commit), and those wake-ups cost it more CPU than its SQL (measured on
/// the Ingest benchmark's frames: 12 context switches and 4.4 wake-ups a frame on two cores).
/// When no access is in flight the writer's queue is free, so GRDB's synchronous access runs
/// the work at once on the caller's thread (``run(_:)``, ``write(_:)``; the access is
/// `@concurrent`, so that thread is one of Swift's cooperative pool, never an actor's such as
/// the main actor's); when one is, the caller suspends instead of blocking its thread behind it. Every
/// other access of the store to the writer goes through the counted async ones (``queued(_:)``,
/// ``queuedWrite(_:)``), so a synchronous access finds the queue free (but for GRDB's own
/// bookkeeping of an access that has just returned) and never waits behind a maintenance
/// transaction or a checkpoint. (In memory the store is a `DatabaseQueue`, whose reads share
/// the writer's queue: a synchronous access may wait behind one read there.)
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
        try await access(here: { try writer.writeWithoutTransaction(work) }, queued: { try await queued(work) })
    }

    /// Runs `work` in one transaction on the writer connection (GRDB's `write`: committed when
    /// it returns, rolled back when it throws).
    /// - Throws: as ``run(_:)``.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access(here: { try writer.write(work) }, queued: { try await queuedWrite(work) })
    }

    /// Runs `work` on the writer connection on this thread when no access is in flight, outside
    /// a transaction (for reads: the writer sees every committed row); nil, without running it,
    /// when one is.
    /// - Throws: `CancellationError` when the task is cancelled, what `work` throws, GRDB's errors.
    @concurrent
    func runIfFree<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T? {
        try Task.checkCancellation()
        return try hereIfFree { try writer.writeWithoutTransaction(work) }
    }

    /// `here` (GRDB's synchronous access: the writer's serial queue runs it on this thread) when
    /// nothing is in flight, else `queued`.
    @concurrent
    private func access<T: Sendable>(here: () throws -> T, queued: () async throws -> T) async throws -> T {
        try Task.checkCancellation()
        if let value = try hereIfFree(here) { return value }
        return try await queued()
    }

    /// `here`, counted as in flight, when nothing else is; nil, without running it, otherwise.
    private func hereIfFree<T>(_ here: () throws -> T) throws -> T? {
        guard inFlight.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else { return nil }
        defer { inFlight.subtract(1, ordering: .releasing) }
        return try here()
    }

    /// Runs `work` on the writer connection through GRDB's async access, counted as in flight.
    /// - Throws: what `work` throws, GRDB's errors (`CancellationError` for a cancelled task).
    func queued<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .releasing) }
        return try await writer.writeWithoutTransaction(work)
    }

    /// Runs `work` in one transaction through GRDB's async access, counted as in flight.
    /// - Throws: what `work` throws, GRDB's errors (`CancellationError` for a cancelled task).
    func queuedWrite<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .releasing) }
        return try await writer.write(work)
    }
}
