/// A server timestamp, kept exactly as whole microseconds since 1970-01-01T00:00:00Z so that
/// ordering by `(createdAt, id)` is exact (a floating-point `Date` is not).
///
/// Parses every form the server writes: ISO-8601 UTC with an optional fraction of up to six
/// digits, ending in `Z` (REST) or `+00:00` (WebSocket); any `±HH:MM` offset is applied.
public struct ServerTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    public var microseconds: Int64

    /// A timestamp from microseconds since the Unix epoch.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Parses `text`; `nil` when it is not a date-time the server writes.
    public init?(parsing text: String) {
        guard let micros = Self.parse(text) else { return nil }
        self.microseconds = micros
    }

    /// Decodes from a JSON string.
    /// - Throws: `DecodingError.dataCorrupted` for a malformed timestamp.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let micros = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Malformed timestamp")
        }
        self.microseconds = micros
    }

    /// Encodes as the REST form (`…Z`).
    /// - Throws: the encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(restText)
    }

    /// How the UTC designator is written.
    public enum Suffix: Sendable {
        /// `…Z`, as the reference server writes REST bodies.
        case zulu
        /// `…+00:00`, as the reference server writes WebSocket payloads.
        case offset
    }

    /// The REST form: six fractional digits (dropped when zero), ending in `Z`.
    public var restText: String { text(suffix: .zulu) }

    /// Six fractional digits (dropped when zero), ending in `suffix`.
    public func text(suffix: Suffix) -> String { Self.format(microseconds, suffix: suffix) }

    /// This timestamp moved by `delta` microseconds (saturating).
    public func adding(microseconds delta: Int64) -> ServerTimestamp {
        let (sum, overflow) = microseconds.addingReportingOverflow(delta)
        return ServerTimestamp(microseconds: overflow ? (delta < 0 ? .min : .max) : sum)
    }

    /// Orders by time.
    public static func < (lhs: ServerTimestamp, rhs: ServerTimestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    /// The REST form.
    public var description: String { restText }

    private static func format(_ micros: Int64, suffix: Suffix) -> String {
        let seconds = micros.floorDiv(1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 { text += "." + pad(fraction, 6) }
        return text + (suffix == .zulu ? "Z" : "+00:00")
    }

    /// Parses into microseconds since the epoch, or `nil`.
    private static func parse(_ text: String) -> Int64? {
        // Read in place over the string's UTF-8 (every decoded message has one or two): no array.
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116 || bytes[10] == 32,
              bytes[13] == 58, bytes[16] == 58,
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                guard digits < 6 else { return nil }
                micros = micros * 10 + Int64(bytes[index] - 48)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<6 { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            let rest = UnsafeBufferPointer(rebasing: bytes[index...])
            if rest.count == 1, rest[0] == 90 || rest[0] == 122 {
                offsetSeconds = 0
            } else if rest.count == 6, rest[0] == 43 || rest[0] == 45, rest[3] == 58,
                      let offsetHours = number(rest, 1, 2), let offsetMinutes = number(rest, 4, 2),
                      offsetHours < 24, offsetMinutes < 60 {
                let magnitude = Int64(offsetHours * 3600 + offsetMinutes * 60)
                offsetSeconds = rest[0] == 43 ? magnitude : -magnitude
            } else {
                return nil
            }
        }
        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
        return seconds * 1_000_000 + micros
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    private static func pad(_ value: some BinaryInteger, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's `days_from_civil`.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDiv(400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's `civil_from_days`.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
