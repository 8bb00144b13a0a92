/// Mutual exclusion per key for async work: ``withLock(_:_:)`` runs its body only when no other
/// body holds the same key, in arrival order. The messaging layer uses it around every
/// read–modify–write of protocol state (a pairwise session, a sender key): a ratchet state
/// loaded by two tasks at once would be advanced twice from the same point, which reuses keys.
@_spi(Benchmarks) public actor KeyedAsyncLock {
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var held: Set<String> = []

    /// A lock table with nothing held.
    public init() {}

    /// Runs `body` holding `key`.
    public func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async rethrows -> T {
        try await withLock(key, whenItWaits: {}) { _ in try await body() }
    }

    /// Runs `body` holding `key`; `whenItWaits` is called (on the lock's actor, before it waits) when
    /// another body holds `key`, and `body` is told whether it did.
    public func withLock<T: Sendable>(_ key: String, whenItWaits: @Sendable () -> Void,
                                      _ body: @Sendable (_ waited: Bool) async throws -> T) async rethrows -> T {
        let waited = held.contains(key)
        if waited { whenItWaits() }
        await acquire(key)
        do {
            let result = try await body(waited)
            release(key)
            return result
        } catch {
            release(key)
            throw error
        }
    }

    /// Runs `body` holding every key of `keys` (taken in sorted order, so two callers with
    /// overlapping sets cannot deadlock).
    public func withLocks<T: Sendable>(_ keys: Set<String>, _ body: @Sendable () async throws -> T) async rethrows -> T {
        let ordered = keys.sorted()
        for key in ordered { await acquire(key) }
        do {
            let result = try await body()
            for key in ordered.reversed() { release(key) }
            return result
        } catch {
            for key in ordered.reversed() { release(key) }
            throw error
        }
    }

    private func acquire(_ key: String) async {
        if !held.contains(key) {
            held.insert(key)
            return
        }
        await withCheckedContinuation { continuation in
            waiters[key, default: []].append(continuation)
        }
    }

    private func release(_ key: String) {
        if var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            held.remove(key)
        }
    }
}
