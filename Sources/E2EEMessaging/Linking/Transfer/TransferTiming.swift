/// The bounds of a transfer (docs/spec/protocol.md §11.4), in microseconds where they are times.
enum TransferTiming {
    /// Messages the primary may send beyond the highest acknowledgement.
    static let window: UInt32 = 16
    /// Messages the new device holds above its next index.
    static let heldLimit = 16
    /// The first resend timeout and acknowledgement wait, in seconds.
    static let firstWait: Int64 = 60
    /// The longest resend timeout and acknowledgement wait, in seconds.
    static let longestWait: Int64 = 3_600
    /// At most once a minute: a window resend on a repeated acknowledgement, an acknowledgement of a duplicate.
    static let repeatSpacing: Int64 = 60
    /// Acknowledgements the new device sends without progress.
    static let idleAckLimit = 10
    /// A transfer without progress this long fails, in seconds.
    static let stallLimit: Int64 = 86_400
    /// A transfer fails after this long in all, in seconds.
    static let totalLimit: Int64 = 7 * 86_400
    /// How often a running transfer checks its timers.
    static let tick: Duration = .seconds(1)

    static let microsecond: Int64 = 1_000_000

    /// `seconds` doubled, at most ``longestWait``.
    static func doubled(_ seconds: Int64) -> Int64 { min(longestWait, seconds * 2) }
}
