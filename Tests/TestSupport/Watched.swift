import Foundation

/// A value a test can wait on: every change wakes the waiters whose condition now holds. The
/// time limit is wall-clock and generous (it only stops a broken test from hanging).
public final class Watched<Value: Sendable>: @unchecked Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = NSLock()
    private var stored: Value
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0

    /// Starts with `value`.
    public init(_ value: Value) { stored = value }

    /// The value now.
    public var value: Value { lock.withLock { stored } }

    /// Changes the value and wakes the waiters it satisfies.
    public func update(_ change: (inout Value) -> Void) {
        let ready: [CheckedContinuation<Bool, Never>] = lock.withLock {
            change(&stored)
            let satisfied = waiters.filter { $0.value.condition(stored) }
            for id in satisfied.keys { waiters[id] = nil }
            return satisfied.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds; false when `limit` passed first.
    @discardableResult
    public func wait(limit: Duration = .seconds(20), until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        let id: Int = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.expire(id)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let holds: Bool = lock.withLock {
                if condition(stored) { return true }
                waiters[id] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if holds { continuation.resume(returning: true) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: false)
    }
}
