import Synchronization

/// Surfaces ``AccountEvent/clockSuspect`` once per agreed reading (docs/spec/protocol.md §10.19,
/// §10.21): the server's `created_at` disagreeing with the clock at a post, and a key change
/// whose gate only the raw clock would open, are the same news for the user — that the device's
/// clock is not yet agreed — and it does not change until the device posts again and its agreed
/// reading moves. Every listing that finds the gate held back would otherwise repeat it.
final class ClockSuspectLatch: Sendable {
    /// The agreed reading the event was last surfaced under (`.some(nil)`: under none yet).
    private let surfacedUnder = Mutex<Int64??>(nil)

    /// Whether `clockSuspect` is news under `agreedReading`; records that it has been surfaced.
    func shouldSurface(agreedReading: Int64?) -> Bool {
        surfacedUnder.withLock { last in
            if let last, last == agreedReading { return false }
            last = .some(agreedReading)
            return true
        }
    }
}
