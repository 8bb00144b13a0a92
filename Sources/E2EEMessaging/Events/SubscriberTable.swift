import Foundation
import Synchronization

/// The subscribers of a fan-out (account events, timeline signals, connection states, change
/// signals) behind one lock, each added with its `AsyncStream`'s continuation.
///
/// A stream's end never takes the lock. The Swift runtime runs `onTermination` while it holds
/// the cancelled reader's own task lock, and a publisher that yields under this lock needs that
/// task lock to wake the reader: an end that took this lock deadlocked the two (a `link start`
/// that never exited, its task group cancelled just as the transfer published its last
/// progress). So an end only marks its entry, and the table drops marked entries whenever it
/// next holds the lock.
final class SubscriberTable<Entry>: @unchecked Sendable {
    /// Set, lock-free, when an entry's stream ends.
    private final class EndMark: Sendable {
        let ended = Atomic<Bool>(false)
    }

    private let lock = NSLock()
    private var next = 0
    private var entries: [Int: (entry: Entry, end: EndMark)] = [:]

    /// Adds `entry`, whose stream ends with `continuation`'s; `welcome` runs on it under the lock,
    /// so whatever it yields comes before anything published after this returns.
    func add<Element>(_ entry: Entry, endingWith continuation: AsyncStream<Element>.Continuation, welcome: (Entry) -> Void = { _ in }) {
        let end = EndMark()
        lock.withLock {
            sweep()
            next += 1
            entries[next] = (entry, end)
            welcome(entry)
        }
        continuation.onTermination = { _ in end.ended.store(true, ordering: .releasing) }
    }

    /// Runs `prepare` once, then `body` on each subscriber whose stream has not ended, all under
    /// the lock (so one subscriber's deliveries are never interleaved with another publish's).
    func forEach(prepare: () -> Void = {}, _ body: (Entry) -> Void) {
        lock.withLock {
            prepare()
            sweep()
            for (entry, _) in entries.values { body(entry) }
        }
    }

    /// Removes every subscriber and returns them (to be finished outside the lock).
    func removeAll() -> [Entry] {
        lock.withLock {
            defer { entries.removeAll() }
            return entries.values.map(\.entry)
        }
    }

    /// Drops the subscribers whose streams ended. Called under the lock.
    private func sweep() {
        guard entries.values.contains(where: { $0.end.ended.load(ordering: .acquiring) }) else { return }
        entries = entries.filter { !$0.value.end.ended.load(ordering: .acquiring) }
    }
}
