import E2EECrypto
import Synchronization

/// Listed identities with a time limit per call. A lane asks for them while it holds its
/// device's session lock, so a server that hangs would stall that device's receiving and
/// sending for as long as the HTTP client waits. Past `limit` the call throws
/// ``ServerError/transport(_:)`` (the receiver then treats the list as unavailable: the message
/// waits in the pending queue and is re-driven later) and the request is cancelled; its late
/// answer, if any, is dropped.
struct TimeLimitedListedIdentities: ListedIdentityProviding {
    /// Where the answers come from.
    let base: any ListedIdentityProviding
    /// How long one call may take.
    let limit: Duration

    func listedIdentities(userID: String, refresh: Bool) async throws -> [String: IdentityBlob] {
        let race = FirstAnswer<[String: IdentityBlob]>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.install(continuation)
                let base = base
                let limit = limit
                let fetch = Task {
                    do {
                        race.answer(.success(try await base.listedIdentities(userID: userID, refresh: refresh)))
                    } catch {
                        race.answer(.failure(error))
                    }
                }
                race.onEnd { fetch.cancel() }
                Task {
                    try? await Task.sleep(for: limit)
                    race.answer(.failure(ServerError.transport("no answer from the device directory within \(limit)")))
                }
            }
        } onCancel: {
            race.answer(.failure(CancellationError()))
        }
    }
}

/// The first of several answers to one waiting caller; later ones are dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var ended = false
        var endActions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// The caller waiting for the answer (an answer that came first is given at once).
    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.early = nil
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    /// Runs `action` once the first answer is given (at once if it was).
    func onEnd(_ action: @escaping @Sendable () -> Void) {
        let now: Bool = state.withLock { state in
            if state.ended { return true }
            state.endActions.append(action)
            return false
        }
        if now { action() }
    }

    /// Gives `result` to the caller if no answer came before it.
    func answer(_ result: Result<Value, any Error>) {
        let (waiter, actions): (CheckedContinuation<Value, any Error>?, [@Sendable () -> Void]) = state.withLock { state in
            guard !state.ended else { return (nil, []) }
            state.ended = true
            defer {
                state.continuation = nil
                state.endActions.removeAll()
            }
            if state.continuation == nil { state.early = result }
            return (state.continuation, state.endActions)
        }
        waiter?.resume(with: result)
        for action in actions { action() }
    }
}
