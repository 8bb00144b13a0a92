import Foundation

/// The sync engine's weak reference to its host. The account builds its engine before it can
/// hand out `self` (an initializer cannot pass `self` on until every stored property is set),
/// so the host is attached afterwards, once; and it is weak because the host owns the engine.
/// A lock makes the late attachment safe to read from any task.
final class SyncHostLink: @unchecked Sendable {
    private let lock = NSLock()
    private weak var _host: (any SyncHost)?

    /// The host, while it is alive and attached.
    var host: (any SyncHost)? {
        lock.withLock { _host }
    }

    /// Attaches `host` (the account, at the end of its initializer).
    func attach(_ host: any SyncHost) {
        lock.withLock { _host = host }
    }
}
