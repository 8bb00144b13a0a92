import E2EETestSupport
import Foundation

/// A clock that only moves when the test says so. ``sleep(_:)`` suspends until ``advance(by:)``
/// passes its deadline (or the sleeping task is cancelled); ``pending`` lists the durations of
/// the sleeps waiting now, so a test can wait for a timer to be armed and see its length.
final class ManualClock: @unchecked Sendable {
    private struct Sleeper {
        let deadline: Duration
        let requested: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var now: Duration = .zero
    private var sleepers: [Int: Sleeper] = [:]
    private var cancelledEarly: Set<Int> = []
    private var nextID = 0
    /// The requested durations of the sleeps waiting now.
    let pending = Watched<[Duration]>([])
    /// Every duration ever requested, in order.
    let requested = Watched<[Duration]>([])

    /// Suspends until the clock has advanced `duration`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(_ duration: Duration) async throws {
        let id: Int = lock.withLock {
            nextID += 1
            requested.update { $0.append(duration) }
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Bool? = lock.withLock {
                    if cancelledEarly.remove(id) != nil { return false }
                    if duration <= .zero { return true }
                    sleepers[id] = Sleeper(deadline: now + duration, requested: duration, continuation: continuation)
                    publishPendingLocked()
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                if let sleeper = sleepers.removeValue(forKey: id) {
                    publishPendingLocked()
                    return sleeper
                }
                cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep whose deadline has passed, earliest first.
    func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            now += duration
            let due = sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { sleepers[id] = nil }
            publishPendingLocked()
            return due.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits until a sleep of exactly `duration` is pending.
    @discardableResult
    func waitForSleep(_ duration: Duration) async -> Bool {
        await pending.wait { $0.contains(duration) }
    }

    /// Publishes the pending durations; called with the lock held, so updates keep their order.
    private func publishPendingLocked() {
        let durations = sleepers.values.map(\.requested)
        pending.update { $0 = durations }
    }
}
