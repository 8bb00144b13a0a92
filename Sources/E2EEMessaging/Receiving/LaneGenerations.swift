import Synchronization

/// How many lanes of each sender device have run: a batch plans with the sender-key
/// states the store holds when it starts, and batches of different channels overlap, so a lane
/// of another batch for the same device may move those states on before this batch's lane gets
/// the device's lock. A lane compares the count it was planned under with the count when it
/// holds the lock and, when they differ, reads its keys from the store instead of the plan.
final class LaneGenerations: Sendable {
    private let counts = Mutex<[String: UInt64]>([:])

    /// The counts of every device now (taken before a batch's plan reads the store).
    func snapshot() -> [String: UInt64] {
        counts.withLock { $0 }
    }

    /// Whether no lane of `device` ran since `snapshot` was taken (its planned keys still hold).
    func unchanged(_ device: String, since snapshot: [String: UInt64]) -> Bool {
        counts.withLock { $0[device, default: 0] } == snapshot[device, default: 0]
    }

    /// Counts a lane of `device` that ran (called while holding the device's lock).
    func bump(_ device: String) {
        counts.withLock { $0[device, default: 0] &+= 1 }
    }
}
