import Foundation

extension AccountConfiguration {
    /// The clock text 1.3's rules read (docs/spec/protocol.md §10.19), in unix seconds: the system
    /// clock, never ``now`` (which stays for timeouts and dates shown) and never a server's time.
    /// Debug builds add ``debugClockOffset``; release builds have no offset.
    var userKeyClock: @Sendable () -> Int64 {
        #if DEBUG
        let offset = debugClockOffset.components.seconds
        return { Int64(Date().timeIntervalSince1970) + offset }
        #else
        return { Int64(Date().timeIntervalSince1970) }
        #endif
    }
}
