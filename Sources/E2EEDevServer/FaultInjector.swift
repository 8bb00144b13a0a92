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
    /// Sockets stop reading what clients send, so pings go unanswered (and `subscribe` and
    /// typing frames wait). Applies to a socket from its opening, or after the next frame it
    /// reads (a read already waiting still answers the pings it sees).
    public private(set) var ignoreClientFrames = false
    /// When set, every WebSocket handshake is refused with this status.
    public private(set) var refuseUpgradesStatus: Int?
    /// The `Retry-After` sent with refused handshakes, if any.
    public private(set) var refuseUpgradesRetryAfter: Int?
    private var pendingDrops = 0
    /// How many requests were closed unanswered (by ``dropNextRequests(_:)`` or by the
    /// ``DevServerQuirks/closeConnectionAfterCommitLag`` quirk).
    public private(set) var droppedRequestCount = 0
    private let hub: EventHub?
    /// Access tokens issued at or before this time (microseconds) are refused as expired.
    public private(set) var accessTokensExpiredBefore: Int64?

    /// Creates an injector with no fault switched on, attached to no server (the socket actions
    /// reach nobody).
    public init() { hub = nil }

    init(hub: EventHub) { self.hub = hub }

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

    /// Makes sockets stop reading from clients, so their pings go unanswered (or read again).
    /// Together with ``goSilent(_:)`` a socket looks like a dead peer whose TCP connection is
    /// still open.
    public func ignoreClientFrames(_ on: Bool) { ignoreClientFrames = on }

    /// Refuses every WebSocket upgrade with `status` (and `Retry-After: retryAfter` when given);
    /// `nil` accepts them again. The ticket of a refused handshake is not spent.
    public func refuseUpgrades(status: Int?, retryAfter: Int? = nil) {
        refuseUpgradesStatus = status
        refuseUpgradesRetryAfter = status == nil ? nil : retryAfter
    }

    /// Closes the connection of each of the next `count` HTTP requests (not handshakes) without
    /// an answer and without handling the request.
    public func dropNextRequests(_ count: Int) { pendingDrops += max(0, count) }

    /// Sends `text` as one text frame, as is, to every open socket of `userID` (malformed JSON,
    /// a non-object, an unknown type, a huge frame…). It bypasses the event faults, except
    /// silence.
    public func sendRawFrame(_ text: String, toUser userID: String) async {
        await hub?.send(.raw(text), toUser: userID)
    }

    /// Closes every socket of `userID` with a close frame carrying `code` and `reason`.
    public func closeSockets(ofUser userID: String, code: Int, reason: String?) async {
        await hub?.send(.close(code: code, reason: reason), toUser: userID)
    }

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
        ignoreClientFrames = false
        refuseUpgradesStatus = nil
        refuseUpgradesRetryAfter = nil
        pendingDrops = 0
        accessTokensExpiredBefore = nil
    }

    /// Takes the next pending drop, if any, and counts it.
    func takeDrop() -> Bool {
        guard pendingDrops > 0 else { return false }
        pendingDrops -= 1
        droppedRequestCount += 1
        return true
    }

    /// Counts a request dropped by a quirk.
    func countDrop() { droppedRequestCount += 1 }

    /// Takes the next injected failure, if any.
    func takeFailure() -> InjectedFailure? {
        pendingFailures.isEmpty ? nil : pendingFailures.removeFirst()
    }
}
