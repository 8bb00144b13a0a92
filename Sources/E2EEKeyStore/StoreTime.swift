import Foundation

/// A point in time stored exactly, as whole microseconds since 1970 (server timestamps carry
/// microseconds, and timeline order must be exact, which a floating-point `Date` is not).
public struct StoreTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microseconds: Int64

    /// A time from microseconds since 1970.
    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// A time from a `Date`, rounded to the nearest microsecond (clamped to `Int64`'s range).
    public init(_ date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if micros.isNaN {
            self.microseconds = 0
        } else if micros >= Double(Int64.max) {
            self.microseconds = .max
        } else if micros <= Double(Int64.min) {
            self.microseconds = .min
        } else {
            self.microseconds = Int64(micros)
        }
    }

    /// The current time.
    public static func now() -> StoreTime { StoreTime(Date()) }

    /// The time in whole Unix milliseconds (the unit of a payload's `ts`).
    public var milliseconds: Int64 { microseconds / 1000 }

    /// The time as a `Date` (to within floating-point precision).
    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    /// This time moved by `seconds` (saturating).
    public func adding(seconds: Int64) -> StoreTime {
        let (delta, o1) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = microseconds.addingReportingOverflow(delta)
        if o1 || o2 { return StoreTime(microseconds: seconds < 0 ? .min : .max) }
        return StoreTime(microseconds: sum)
    }

    /// Orders by microseconds.
    public static func < (lhs: StoreTime, rhs: StoreTime) -> Bool { lhs.microseconds < rhs.microseconds }

    /// The microseconds, for logs.
    public var description: String { "\(microseconds)µs" }
}
