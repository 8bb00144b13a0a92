/// Faults a test switches on in a running dev server, to see the client cope with them. Every
/// switch applies from the moment it is set until it is cleared (``reset()`` clears them all).
public actor FaultInjector {
    /// An injected HTTP failure.
    public struct InjectedFailure: Sendable, Equatable {
        /// The status to answer with.
        public var status: Int
        /// Whether the body is plain text (like the reference server's 500s) rather than JSON.
        public var plainText: Bool
    }

    private var pendingFailures: [InjectedFailure] = []
    /// Every socket is closed (without a close handshake) once it has sent this many frames.
    public private(set) var dropSocketsAfterFrames: Int?
    /// Every event frame is sent twice.
    public private(set) var duplicateEvents = false
    /// Every event frame waits this long before it is sent.
    public private(set) var eventDelay: Duration?
    /// Event frames are sent in swapped pairs (a lone one follows after ``reorderHold``).
    public private(set) var reorderEvents = false
    /// How long a reordered event waits for a partner before it is sent anyway.
    public let reorderHold: Duration = .milliseconds(500)
    /// Sockets send nothing at all: no pings, no events.
    public private(set) var silent = false
    /// When set, every WebSocket handshake is refused with this status.
    public private(set) var refuseUpgradesStatus: Int?
    /// Access tokens issued at or before this time (microseconds) are refused as expired.
    public private(set) var accessTokensExpiredBefore: Int64?

    /// Creates an injector with no fault switched on.
    public init() {}

    /// Makes the next `count` HTTP requests (any route, WebSocket handshakes included) fail with
    /// `status` without being handled.
    public func failNextRequests(_ count: Int, status: Int, plainText: Bool = false) {
        pendingFailures += Array(repeating: InjectedFailure(status: status, plainText: plainText), count: max(0, count))
    }

    /// Closes every socket once it has sent `frames` frames (pings included); `nil` clears it.
    public func dropSockets(afterFrames frames: Int?) { dropSocketsAfterFrames = frames }

    /// Sends every event frame twice (or stops doing so).
    public func duplicateEvents(_ on: Bool) { duplicateEvents = on }

    /// Delays every event frame by `delay`; `nil` clears it.
    public func delayEvents(by delay: Duration?) { eventDelay = delay }

    /// Swaps event frames in pairs (or stops doing so).
    public func reorderEvents(_ on: Bool) { reorderEvents = on }

    /// Makes every socket go silent: no pings and no events (or speak again).
    public func goSilent(_ on: Bool) { silent = on }

    /// Refuses every WebSocket upgrade with `status`; `nil` accepts them again.
    public func refuseUpgrades(status: Int?) { refuseUpgradesStatus = status }

    /// Expires every access token issued so far (`now` in microseconds since the epoch).
    func expireAccessTokens(issuedAtOrBefore now: Int64) { accessTokensExpiredBefore = now }

    /// Clears every fault.
    public func reset() {
        pendingFailures = []
        dropSocketsAfterFrames = nil
        duplicateEvents = false
        eventDelay = nil
        reorderEvents = false
        silent = false
        refuseUpgradesStatus = nil
        accessTokensExpiredBefore = nil
    }

    /// Takes the next injected failure, if any.
    func takeFailure() -> InjectedFailure? {
        pendingFailures.isEmpty ? nil : pendingFailures.removeFirst()
    }
}
