import Foundation

extension ServerTimestamp {
    /// The same instant as a `Date`, for display. A `Date` is a `Double` of seconds, so a
    /// timestamp far from 2001 may lose the last microsecond: order and compare by the
    /// timestamp itself, never by this value.
    public var date: Date {
        Date(timeIntervalSince1970: TimeInterval(microseconds / 1_000_000) + TimeInterval(microseconds % 1_000_000) / 1_000_000)
    }

    /// The timestamp of `date`, rounded down to a whole microsecond (saturating at the limits
    /// of `Int64`).
    public init(_ date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
        if micros >= Double(Int64.max) {
            self.init(microseconds: .max)
        } else if micros <= Double(Int64.min) || micros.isNaN {
            self.init(microseconds: micros.isNaN ? 0 : .min)
        } else {
            self.init(microseconds: Int64(micros))
        }
    }
}
