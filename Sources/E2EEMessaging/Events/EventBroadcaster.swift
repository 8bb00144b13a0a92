import Foundation

/// Fans account events out to any number of subscribers, each an `AsyncStream` that buffers
/// up to `bufferLimit` events. A slow app never stalls the engine: a subscriber that does not
/// read loses its oldest events — and is then told so, never silently: a
/// ``AccountEvent/reloadNeeded`` follows the loss (one per gap: while that signal is still
/// unread, further losses add none), after which the app re-reads what it shows from the
/// store (matrix-rust-sdk's timeline does the same with `VectorDiff::Reset`). Thread-safe; the
/// engine calls ``publish(_:)`` from any task.
public final class EventBroadcaster: Sendable {
    private let state = LockedSubscribers()
    private let bufferLimit: Int

    /// A broadcaster whose subscribers each buffer up to `bufferLimit` events (at least 2).
    public init(bufferLimit: Int = 10_000) {
        self.bufferLimit = max(2, bufferLimit)
    }

    /// A new subscription: every event published from now on, until the broadcaster finishes
    /// or the consumer stops iterating.
    public func events() -> AsyncStream<AccountEvent> {
        let (stream, continuation) = AsyncStream<AccountEvent>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.add(Subscriber(continuation: continuation, capacity: bufferLimit))
        continuation.onTermination = { [state] _ in state.remove(id) }
        return stream
    }

    /// Delivers `event` to every current subscriber (and a ``AccountEvent/reloadNeeded`` after
    /// it to one whose buffer just lost an event).
    public func publish(_ event: AccountEvent) {
        state.forEach { $0.deliver(event) }
    }

    /// Ends every subscription.
    public func finish() {
        for subscriber in state.removeAll() { subscriber.continuation.finish() }
    }
}

/// One subscription and what it knows of its reader's progress.
private final class Subscriber {
    let continuation: AsyncStream<AccountEvent>.Continuation
    private let capacity: Int
    /// Whether a reload signal is in the buffer, not read yet.
    private var reloadUnread = false
    /// Events yielded after that signal.
    private var sinceReload = 0

    init(continuation: AsyncStream<AccountEvent>.Continuation, capacity: Int) {
        self.continuation = continuation
        self.capacity = capacity
    }

    /// Yields `event`; after a loss, yields the reload signal unless one is still unread.
    /// Called under the table's lock.
    func deliver(_ event: AccountEvent) {
        let result = continuation.yield(event)
        switch result {
        case .enqueued(let remaining):
            // The buffer holds `capacity - remaining` events; fewer than were yielded since the
            // signal means the reader has taken the signal already.
            if reloadUnread {
                sinceReload += 1
                if capacity - remaining <= sinceReload { reloadUnread = false }
            }
        case .dropped(let lost):
            if case .reloadNeeded = lost { reloadUnread = false }
            if reloadUnread {
                sinceReload += 1
            } else {
                _ = continuation.yield(.reloadNeeded)
                reloadUnread = true
                sinceReload = 0
            }
        case .terminated:
            break
        @unknown default:
            break
        }
    }
}

/// The subscriber table behind a lock.
private final class LockedSubscribers: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var subscribers: [Int: Subscriber] = [:]

    func add(_ subscriber: Subscriber) -> Int {
        lock.withLock {
            next += 1
            subscribers[next] = subscriber
            return next
        }
    }

    func remove(_ id: Int) {
        lock.withLock { _ = subscribers.removeValue(forKey: id) }
    }

    /// Runs `body` on each subscriber while holding the lock (so one subscriber's deliveries
    /// are never interleaved).
    func forEach(_ body: (Subscriber) -> Void) {
        lock.withLock { for subscriber in subscribers.values { body(subscriber) } }
    }

    func removeAll() -> [Subscriber] {
        lock.withLock {
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
    }
}
