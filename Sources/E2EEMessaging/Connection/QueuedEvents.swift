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

    /// How many wait now.
    var waiting: Int { count.withLock { $0 } }

    /// `handed` (one unless said) were handed to the delegate.
    func leave(_ handed: Int = 1) { count.withLock { $0 = max(0, $0 - handed) } }
}
