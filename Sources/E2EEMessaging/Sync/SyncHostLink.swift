import Synchronization

/// The sync engine's weak reference to its host. The account builds its engine before it can
/// hand out `self` (an initializer cannot pass `self` on until every stored property is set),
/// so the host is attached afterwards, once; and it is weak because the host owns the engine.
/// A mutex makes the late attachment safe to read from any task.
final class SyncHostLink: Sendable {
    /// A weak reference, as a value the mutex can hold.
    private struct Weak {
        weak var host: (any SyncHost)?
    }

    private let reference = Mutex(Weak())

    /// The host, while it is alive and attached.
    var host: (any SyncHost)? {
        reference.withLock { $0.host }
    }

    /// Attaches `host` (the account, at the end of its initializer).
    func attach(_ host: any SyncHost) {
        reference.withLock { $0.host = host }
    }
}
