import Foundation

/// Forwards the receive pipeline's "one-time prekeys consumed" signal to the account, which
/// exists only after the pipeline is made (a late-bound, thread-safe callback).
final class ConsumedPrekeysRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var _target: (@Sendable () -> Void)?

    /// What to call.
    var target: (@Sendable () -> Void)? {
        get { lock.withLock { _target } }
        set { lock.withLock { _target = newValue } }
    }

    /// Calls the target, if set.
    func fire() {
        target?()
    }
}
