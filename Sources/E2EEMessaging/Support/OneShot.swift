import Synchronization

/// A result given once and awaited by one caller: the first ``fulfil(_:)`` counts, later ones
/// are dropped; ``value()`` returns it, waiting when it has not come yet.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    /// The result, waiting for it when it has not come yet (one caller at a time).
    /// - Throws: the error it was fulfilled with.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<Value, any Error>? = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// The result if it has come, without waiting.
    var result: Result<Value, any Error>? { state.withLock { $0.result } }

    /// Records `result` unless one came before (then `false`), resuming the waiting caller.
    @discardableResult
    func fulfil(_ result: Result<Value, any Error>) -> Bool {
        let (first, waiter): (Bool, CheckedContinuation<Value, any Error>?) = state.withLock { state in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return first
    }
}
