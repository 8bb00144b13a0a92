import Foundation

/// The dev server's notion of "now", in microseconds since the Unix epoch. The system clock for
/// a person's server; a manual clock for tests, which move it with ``advance(by:)`` to expire
/// tickets and tokens without waiting.
public final class DevServerClock: Sendable {
    private let state: LockedState<Int64?>
    /// Microseconds a shifting clock adds to the system time (``shifting()``).
    private let shift = LockedState<Int64>(0)
    /// Whether ``advance(by:)`` moves a clock that follows the system time.
    private let shifts: Bool

    /// A clock that follows the system time.
    public static func system() -> DevServerClock { DevServerClock(manualStart: nil) }

    /// A clock that follows the system time, moved ahead by every ``advance(by:)``: time keeps
    /// running (posts stay ordered) while a test jumps the server days ahead, to let tokens
    /// expire.
    public static func shifting() -> DevServerClock { DevServerClock(manualStart: nil, shifts: true) }

    /// A clock that starts at `start` and moves only through ``advance(by:)`` and ``set(_:)``.
    public static func manual(start: Date = Date(timeIntervalSince1970: 1_780_000_000)) -> DevServerClock {
        DevServerClock(manualStart: Int64((start.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    private init(manualStart: Int64?, shifts: Bool = false) {
        state = LockedState(manualStart)
        self.shifts = shifts
    }

    /// `true` when the clock only moves when told to.
    public var isManual: Bool { state.withLock { $0 != nil } }

    /// The current time in microseconds since the epoch.
    public var nowMicros: Int64 {
        let shifted = shift.withLock { $0 }
        return state.withLock { manual in
            manual ?? Int64((Date().timeIntervalSince1970 * 1_000_000).rounded()) + shifted
        }
    }

    /// Moves a manual or shifting clock forward by `duration` (a system clock ignores this).
    public func advance(by duration: Duration) {
        let micros = duration.microseconds
        state.withLock { manual in
            if let current = manual { manual = current + micros }
        }
        if shifts { shift.withLock { $0 += micros } }
    }

    /// Sets a manual clock to `date` (a system clock ignores this).
    public func set(_ date: Date) {
        state.withLock { manual in
            if manual != nil { manual = Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
        }
    }
}

/// A value behind a lock, for the few synchronous bits of shared state.
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Duration {
    /// The duration in whole microseconds.
    var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}

extension Duration {
    /// Suspends the current task for this duration.
    ///
    /// Uses `Task.sleep(nanoseconds:)`: on Swift 6.3 for Linux, test processes that used
    /// `Task.sleep(for:)` heavily (sockets, pollers and watchdogs cancelled mid-sleep) were seen to
    /// stall with every thread idle and no timer pending.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep() async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, microseconds)) * 1_000)
    }
}
