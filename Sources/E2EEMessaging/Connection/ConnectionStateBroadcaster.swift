import Synchronization

/// Holds the current ``ConnectionState`` and fans every change out to any number of
/// `AsyncStream` subscribers. A new subscriber first gets the current state, then every change,
/// in order (unbounded: states change a few times per attempt at most, so the buffer of a
/// subscriber that does not read grows slowly). Thread-safe.
final class ConnectionStateBroadcaster: Sendable {
    /// The subscribers; a new one is given the current state, and a state is made current and
    /// delivered, under the table's lock, so a subscriber added while a state is published gets it
    /// exactly once and in order.
    private let table = SubscriberTable<AsyncStream<ConnectionState>.Continuation>()
    private let state = Mutex<ConnectionState>(.disconnected)

    /// The state last published.
    var current: ConnectionState { state.withLock { $0 } }

    /// A new subscription: the current state, then every change until ``finish()``.
    func subscribe() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream(bufferingPolicy: .unbounded)
        table.add(continuation, endingWith: continuation) { $0.yield(current) }
        return stream
    }

    /// Makes `state` current and delivers it to every subscriber.
    func publish(_ state: ConnectionState) {
        table.forEach(prepare: { self.state.withLock { $0 = state } }) { $0.yield(state) }
    }

    /// Ends every subscription.
    func finish() {
        for continuation in table.removeAll() { continuation.finish() }
    }
}
