import Synchronization

/// How many socket events and frame reports wait in the delegate queue (shared by the pumps,
/// which add, and the delegate side, which takes away).
final class QueuedEvents: Sendable {
    private let count = Mutex(0)

    /// Counts one more unless `limit` are already waiting; `false` when full.
    func enter(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// One was handed to the delegate.
    func leave() { count.withLock { $0 = max(0, $0 - 1) } }
}
