import Synchronization

/// Where a ``ReceivePipeline``'s batches spent their time since it was made (the
/// figures per phase of the receive benchmark): each phase's wall time summed over the batches
/// (batches of different channels overlap, so the sums can exceed the elapsed time).
@_spi(Benchmarks) public struct ReceivePhaseTimes: Sendable, Equatable {
    /// Batches ingested (`ReceivePipeline.ingest` calls).
    public var batches = 0
    /// Planning: the merge, content hashes, and the dedupe and sender-key lookup.
    public var plan = Duration.zero
    /// Preparing: envelopes decoded and this device's pairwise entries parsed, over the cores.
    public var prepare = Duration.zero
    /// The lanes: decryption and verification per sender device, until their last commit settled.
    public var lanes = Duration.zero
    /// The store's transactions of the lanes' writes (inside the lanes' time, on the writer).
    public var commit = Duration.zero
    /// The lanes' transactions (each may hold chunks of several lanes and batches).
    public var transactions = 0
    /// The writes those transactions stored (``transactions`` of them: rows per transaction).
    public var committedWrites = 0

    /// No time yet.
    public init() {}
}

/// The running sums, shared by the pipeline and its chunk committers.
final class PhaseClock: Sendable {
    enum Phase { case plan, prepare, lanes, commit }

    private let times = Mutex(ReceivePhaseTimes())

    /// Adds `duration` to `phase`.
    func add(_ duration: Duration, to phase: Phase) {
        times.withLock { times in
            switch phase {
            case .plan: times.plan += duration
            case .prepare: times.prepare += duration
            case .lanes: times.lanes += duration
            case .commit: times.commit += duration
            }
        }
    }

    /// Counts a transaction of `writes` writes that took `duration`.
    func addCommit(_ duration: Duration, writes: Int) {
        times.withLock { times in
            times.commit += duration
            times.transactions += 1
            times.committedWrites += writes
        }
    }

    /// Counts a batch.
    func countBatch() {
        times.withLock { $0.batches += 1 }
    }

    /// Adds the time since `start` to `phase`; returns now (the next phase's start).
    func lap(since start: ContinuousClock.Instant, phase: Phase) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        add(now - start, to: phase)
        return now
    }

    /// The sums so far.
    var snapshot: ReceivePhaseTimes { times.withLock { $0 } }
}
