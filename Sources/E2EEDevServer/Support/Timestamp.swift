import E2EEMessaging

/// Server timestamps: microseconds since the Unix epoch, written as ISO-8601 UTC with six
/// fractional digits (dropped when zero), ending in `Z` (REST) or `+00:00` (WebSocket). The
/// format is the wire format the client parses, so both use ``ServerTimestamp``.
enum Timestamp {
    /// How the UTC designator is written.
    typealias Suffix = ServerTimestamp.Suffix

    /// Formats `micros` (microseconds since the epoch).
    static func format(_ micros: Int64, suffix: Suffix) -> String {
        ServerTimestamp(microseconds: micros).text(suffix: suffix)
    }

    /// Parses an ISO-8601 date-time (`YYYY-MM-DDTHH:MM:SS[.f{1,6}][Z|±HH:MM]`) into microseconds
    /// since the epoch, or `nil` when it is malformed.
    static func parse(_ text: String) -> Int64? {
        ServerTimestamp(parsing: text)?.microseconds
    }
}
