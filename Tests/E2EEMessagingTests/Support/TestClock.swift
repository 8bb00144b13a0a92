import E2EEKeyStore
import Foundation

/// A clock tests move by hand (prekey grace windows, created_at values).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: StoreTime

    init(start: StoreTime = StoreTime(microseconds: 1_800_000_000_000_000)) { current = start }

    var now: StoreTime { lock.withLock { current } }

    func advance(seconds: Int64) { lock.withLock { current = current.adding(seconds: seconds) } }

    /// The clock as the pipeline takes it.
    var closure: @Sendable () -> StoreTime { { [self] in now } }
}

/// Lower-case UUID text, as the server makes ids.
func newID() -> String { UUID().uuidString.lowercased() }

/// A failure of the test support itself.
struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
