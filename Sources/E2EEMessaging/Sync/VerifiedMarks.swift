import Foundation

/// How far each channel's history is known to be in the store without a gap, set by this
/// process's catch-ups, advanced in memory by socket events (a socket's stream has no gap once
/// its catch-up ran, except right where it opened or dropped, which the overlap covers) and
/// written to the channel's sync cursor by the next catch-up. Microseconds of server time.
final class VerifiedMarks: @unchecked Sendable {
    private let lock = NSLock()
    private var marks: [ChannelID: Int64] = [:]

    /// The channel's mark, if a socket event moved it.
    func mark(_ channelID: ChannelID) -> Int64? {
        lock.withLock { marks[channelID] }
    }

    /// Moves the channel's mark forward to `micros` (never back).
    func advance(_ channelID: ChannelID, to micros: Int64) {
        lock.withLock { marks[channelID] = max(marks[channelID] ?? .min, micros) }
    }

    /// Moves the channel's mark forward to `micros`, only if a catch-up of this process set one:
    /// a socket's stream proves nothing for a channel whose history was never read.
    func advanceIfCaughtUp(_ channelID: ChannelID, to micros: Int64) {
        lock.withLock {
            guard let mark = marks[channelID] else { return }
            marks[channelID] = max(mark, micros)
        }
    }

    /// Every mark.
    var all: [ChannelID: Int64] { lock.withLock { marks } }
}
