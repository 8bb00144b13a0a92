import Synchronization

/// Where the receive pipeline hands the link messages it opened, after the commit that stored
/// their ratchet steps (docs/spec/protocol.md §10.10): each subscriber — a link attempt, the
/// primary's open step — gets every message opened while it listens, in commit order. A
/// message opened while no one listens is not kept: a link step acts only on what arrives while
/// it is open, and a duplicate never comes back (§6.6).
final class LinkInbox: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<OpenedLinkMessage>.Continuation]>([:])
    private let nextID = Mutex(0)

    /// Every link message opened from now on, until the returned stream is dropped.
    func messages() -> AsyncStream<OpenedLinkMessage> {
        let id = nextID.withLock { value in
            value += 1
            return value
        }
        let (stream, continuation) = AsyncStream<OpenedLinkMessage>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Hands `opened` to every subscriber.
    func deliver(_ opened: [OpenedLinkMessage]) {
        guard !opened.isEmpty else { return }
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current {
            for message in opened { continuation.yield(message) }
        }
    }
}
