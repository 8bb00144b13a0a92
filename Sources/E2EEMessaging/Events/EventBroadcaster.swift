import Foundation

/// Fans account events out to any number of subscribers, each an `AsyncStream` that buffers
/// up to `bufferLimit` events (the oldest are dropped for a subscriber that does not read, so a
/// slow app never stalls the engine). Thread-safe; the engine calls ``publish(_:)`` from any
/// task.
public final class EventBroadcaster: Sendable {
    private let state = LockedSubscribers()
    private let bufferLimit: Int

    /// A broadcaster whose subscribers each buffer up to `bufferLimit` events.
    public init(bufferLimit: Int = 10_000) {
        self.bufferLimit = bufferLimit
    }

    /// A new subscription: every event published from now on, until the broadcaster finishes
    /// or the consumer stops iterating.
    public func events() -> AsyncStream<AccountEvent> {
        let (stream, continuation) = AsyncStream<AccountEvent>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.add(continuation)
        continuation.onTermination = { [state] _ in state.remove(id) }
        return stream
    }

    /// Delivers `event` to every current subscriber.
    public func publish(_ event: AccountEvent) {
        for continuation in state.snapshot() { continuation.yield(event) }
    }

    /// Ends every subscription.
    public func finish() {
        for continuation in state.removeAll() { continuation.finish() }
    }
}

/// The subscriber table behind a lock.
private final class LockedSubscribers: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var continuations: [Int: AsyncStream<AccountEvent>.Continuation] = [:]

    func add(_ continuation: AsyncStream<AccountEvent>.Continuation) -> Int {
        lock.withLock {
            next += 1
            continuations[next] = continuation
            return next
        }
    }

    func remove(_ id: Int) {
        lock.withLock { _ = continuations.removeValue(forKey: id) }
    }

    func snapshot() -> [AsyncStream<AccountEvent>.Continuation] {
        lock.withLock { Array(continuations.values) }
    }

    func removeAll() -> [AsyncStream<AccountEvent>.Continuation] {
        lock.withLock {
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
    }
}
