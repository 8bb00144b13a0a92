import Foundation

/// Holds the current ``ConnectionState`` and fans every change out to any number of
/// `AsyncStream` subscribers. A new subscriber first gets the current state, then every change,
/// in order (unbounded: states change a few times per attempt at most, so the buffer of a
/// subscriber that does not read grows slowly). Thread-safe.
final class ConnectionStateBroadcaster: Sendable {
    private let table = LockedStateTable()

    /// The state last published.
    var current: ConnectionState { table.current }

    /// A new subscription: the current state, then every change until ``finish()``.
    func subscribe() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream(bufferingPolicy: .unbounded)
        let id = table.add(continuation)
        continuation.onTermination = { [table] _ in table.remove(id) }
        return stream
    }

    /// Makes `state` current and delivers it to every subscriber.
    func publish(_ state: ConnectionState) {
        table.publish(state)
    }

    /// Ends every subscription.
    func finish() {
        for continuation in table.removeAll() { continuation.finish() }
    }
}

/// The subscribers and the current state behind one lock, so that a subscriber added while a
/// state is published gets it exactly once and in order.
private final class LockedStateTable: @unchecked Sendable {
    private let lock = NSLock()
    private var state: ConnectionState = .disconnected
    private var next = 0
    private var continuations: [Int: AsyncStream<ConnectionState>.Continuation] = [:]

    var current: ConnectionState { lock.withLock { state } }

    func add(_ continuation: AsyncStream<ConnectionState>.Continuation) -> Int {
        lock.withLock {
            next += 1
            continuations[next] = continuation
            continuation.yield(state)
            return next
        }
    }

    func remove(_ id: Int) {
        lock.withLock { _ = continuations.removeValue(forKey: id) }
    }

    func publish(_ newState: ConnectionState) {
        lock.withLock {
            state = newState
            for continuation in continuations.values { continuation.yield(newState) }
        }
    }

    func removeAll() -> [AsyncStream<ConnectionState>.Continuation] {
        lock.withLock {
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
    }
}
