import Foundation

/// A flag set at most once, running one action when it is set (whoever sets it first wins).
final class OnceFlag: Sendable {
    private struct State {
        var isSet = false
        var action: (@Sendable () -> Void)?
    }

    private let state = LockedState(State())

    /// Sets the flag; `true` when this call set it (it was not set before).
    @discardableResult
    func set() -> Bool {
        let action: (@Sendable () -> Void)?? = state.withLock { state in
            guard !state.isSet else { return .none }
            state.isSet = true
            defer { state.action = nil }
            return .some(state.action)
        }
        guard case .some(let run) = action else { return false }
        run?()
        return true
    }

    /// Runs `action` when the flag is set (at once when it already is).
    func onSet(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isSet { return true }
            state.action = action
            return false
        }
        if runNow { action() }
    }
}
