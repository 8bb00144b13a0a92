import E2EEMessaging
import Foundation

/// What the tasks of one connection share: the keepalive monitor, whether a close frame was
/// sent, and the reason the connection ends (the first one recorded wins).
final class SessionState: @unchecked Sendable {
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var monitor: KeepaliveMonitor
    private var reason: RealtimeCloseReason?
    private var closeSent = false

    init(options: RealtimeConnectionOptions) {
        monitor = KeepaliveMonitor(options: options)
    }

    /// The keepalive tick interval, or `nil` when keepalive is off.
    var tickInterval: Duration? { lock.withLock { monitor.isActive ? monitor.tickInterval : nil } }

    private var elapsed: Duration { ContinuousClock.now - start }

    /// A frame arrived.
    func frameReceived() {
        let now = elapsed
        lock.withLock { monitor.frameReceived(at: now) }
    }

    /// The server sent a ping.
    func serverPingReceived() {
        let now = elapsed
        lock.withLock { monitor.serverPingReceived(at: now) }
    }

    /// A pong arrived.
    func pongReceived() {
        let now = elapsed
        lock.withLock { monitor.pongReceived(at: now) }
    }

    /// The keepalive decision now.
    func keepaliveTick() -> KeepaliveMonitor.Action {
        let now = elapsed
        return lock.withLock { monitor.tick(at: now) }
    }

    /// Records why the connection ends, unless a reason is already recorded.
    func end(_ value: RealtimeCloseReason) {
        lock.withLock { if reason == nil { reason = value } }
    }

    /// The recorded reason, if any.
    var endReason: RealtimeCloseReason? { lock.withLock { reason } }

    /// Marks the close frame as sent; `false` when one was sent already.
    func markCloseSent() -> Bool {
        lock.withLock {
            defer { closeSent = true }
            return !closeSent
        }
    }

    /// Whether a close frame was sent (or is queued).
    var hasSentClose: Bool { lock.withLock { closeSent } }
}
