import Foundation

extension AccountConfiguration {
    /// The clock text 1.3's rules read (docs/spec/protocol.md §10.19), in unix seconds: the system
    /// clock, never ``now`` (which stays for timeouts and dates shown) and never a server's time.
    /// Debug builds add ``debugClockOffset`` and ``debugClockShift``; release builds have no offset.
    var userKeyClock: @Sendable () -> Int64 {
        #if DEBUG
        let offset = debugClockOffset.components.seconds
        let shift = debugClockShift
        return { Int64(Date().timeIntervalSince1970) + offset + (shift?() ?? 0) }
        #else
        return { Int64(Date().timeIntervalSince1970) }
        #endif
    }
}

extension AccountConfiguration {
    /// Seconds a link attempt's idle clock is moved by (debug builds: ``debugClockShift``;
    /// release builds: none).
    var linkIdleShift: @Sendable () -> Int64 {
        #if DEBUG
        let shift = debugClockShift
        return { shift?() ?? 0 }
        #else
        return { 0 }
        #endif
    }
}
