import Foundation

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
    /// The share of event frames sent twice (0 none, 1 every one).
    public private(set) var duplicateEventProbability = 0.0
    /// Every event frame is sent twice (``duplicateEventProbability`` is 1).
    public var duplicateEvents: Bool { duplicateEventProbability >= 1 }
    /// Every event frame waits this long before it is sent.
    public private(set) var eventDelay: Duration?
    /// The share of event frames held back to follow the next one (0 none, 1 every one: frames
    /// go in swapped pairs; a lone held one follows after ``reorderHold``).
    public private(set) var reorderEventProbability = 0.0
    /// Event frames are sent in swapped pairs (``reorderEventProbability`` is 1).
    public var reorderEvents: Bool { reorderEventProbability >= 1 }
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
    /// When set, every message write (create, edit, delete) publishes its event first and
    /// commits after a random delay of up to this long (overriding the
    /// ``DevServerQuirks/publishBeforeCommit`` quirk and its fixed delay).
    public private(set) var commitDelayLimit: Duration?
    /// When set, new messages of a channel share `created_at` in runs of this length (overriding
    /// the ``DevServerQuirks/tiedTimestamps`` quirk, on or off).
    public private(set) var tieRunLength: Int?
    /// When set, message pages (`GET /channels/{id}/messages`) leave out every row this device
    /// posted, as a server hiding a device's own newer messages from its catch-up would.
    public private(set) var hiddenSenderDevice: String?
    private var random = SeededRandom(seed: 0)
    /// What the message pages of a channel do instead of answering normally, per channel id.
    public private(set) var pageFaults: [String: PageFault] = [:]
    private var pageFaultReads: [String: Int] = [:]
    /// Message ids left out of a channel's pages, per channel id (``omitRows(ofChannel:_:)``).
    public private(set) var omittedRows: [String: Set<String>] = [:]
    private var recordFaults = RecordFaults()
    private var postFaults = PostFaults()
    /// Writes released, reposted and forged rows; `nil` when attached to no server.
    private let writer: FaultPostWriter?

    /// What a channel's message pages (`GET /channels/{id}/messages`) do under
    /// ``faultPages(ofChannel:_:)``: only that channel's reads, every other route and channel
    /// answers normally.
    public enum PageFault: Sendable, Equatable {
        /// Every read fails with this status (a 429 carries `Retry-After: 1`).
        case status(Int)
        /// Every read waits this long before it answers (normally).
        case stall(Duration)
        /// Pages never end: every read answers a full page of made-up messages older than its
        /// `before`, each with `contentLength` characters of content, and `has_more: true`.
        case endless(contentLength: Int)
    }

    /// Creates an injector with no fault switched on, attached to no server (the socket actions
    /// reach nobody).
    public init() {
        hub = nil
        writer = nil
    }

    init(hub: EventHub, writer: FaultPostWriter) {
        self.hub = hub
        self.writer = writer
    }

    /// Makes the next `count` HTTP requests (any route, WebSocket handshakes included) fail with
    /// `status` without being handled.
    public func failNextRequests(_ count: Int, status: Int, plainText: Bool = false) {
        pendingFailures += Array(repeating: InjectedFailure(status: status, plainText: plainText), count: max(0, count))
    }

    /// Closes every socket once it has sent `frames` frames (pings included); `nil` clears it.
    public func dropSockets(afterFrames frames: Int?) { dropSocketsAfterFrames = frames }

    /// Sends every event frame twice (or stops doing so).
    public func duplicateEvents(_ on: Bool) { duplicateEventProbability = on ? 1 : 0 }

    /// Sends each event frame twice with `probability` (0…1), drawn from the seeded generator
    /// (``seedRandomFaults(_:)``).
    public func duplicateEvents(probability: Double) { duplicateEventProbability = Self.clamped(probability) }

    /// Delays every event frame by `delay`; `nil` clears it.
    public func delayEvents(by delay: Duration?) { eventDelay = delay }

    /// Swaps event frames in pairs (or stops doing so).
    public func reorderEvents(_ on: Bool) { reorderEventProbability = on ? 1 : 0 }

    /// Holds each event frame back with `probability` (0…1) so that the next one overtakes it,
    /// drawn from the seeded generator (``seedRandomFaults(_:)``).
    public func reorderEvents(probability: Double) { reorderEventProbability = Self.clamped(probability) }

    /// Restarts the generator behind the random faults (duplicates, reorders, commit delays)
    /// from `seed`, so that a test run can be repeated.
    public func seedRandomFaults(_ seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Publishes each message event before its write and commits up to `limit` later (a random
    /// delay per write); `nil` returns to the configured quirk.
    public func delayCommits(upTo limit: Duration?) { commitDelayLimit = limit }

    /// Gives new messages of a channel the same `created_at` in runs of `runLength` (at least 2);
    /// `nil` returns to the configured quirk.
    public func tieTimestamps(runLength: Int?) { tieRunLength = runLength.map { max(2, $0) } }

    /// Leaves the rows `deviceID` posted out of every message page (`nil`: pages are whole
    /// again). Events and other routes are unchanged.
    public func hideRows(postedBy deviceID: String?) { hiddenSenderDevice = deviceID?.lowercased() }

    /// Drops every open socket of `userID` (of every user when `nil`) now, without a close
    /// handshake, as a lost network would.
    public func dropOpenSockets(ofUser userID: String? = nil) async {
        if let userID {
            await hub?.send(.drop, toUser: userID)
        } else {
            await hub?.sendToAll(.drop)
        }
    }

    /// Kills the event fan-out, as a Redis restart kills the reference server's pub/sub
    /// listener (docs/spec/server-api.md §12): open sockets stay open and answer pings but receive no
    /// events, until some new socket connects (any user's), which heals it.
    public func killPubSub() async { await hub?.killPubSub() }

    /// Whether the event fan-out is dead (``killPubSub()``, not yet healed by a new socket).
    public var pubSubDead: Bool {
        get async { await hub?.pubSubDead ?? false }
    }

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

    /// Makes the message pages of `channelID` fail, stall or never end (``PageFault``); `nil`
    /// answers them normally again.
    public func faultPages(ofChannel channelID: String, _ fault: PageFault?) {
        pageFaults[channelID.lowercased()] = fault
    }

    /// Leaves the messages `messageIDs` out of `channelID`'s pages (the rows stay stored, no
    /// event is sent: a server erasing by omission); `nil` or empty returns them.
    public func omitRows(ofChannel channelID: String, _ messageIDs: Set<String>?) {
        let ids = Set((messageIDs ?? []).map { $0.lowercased() })
        omittedRows[channelID.lowercased()] = ids.isEmpty ? nil : ids
    }

    /// How many reads of `channelID`'s message pages met a fault.
    public func faultedPageReads(ofChannel channelID: String) -> Int {
        pageFaultReads[channelID.lowercased(), default: 0]
    }

    /// The fault of a read of `channelID`'s pages, counted, if any.
    func takePageFault(channelID: String) -> PageFault? {
        guard let fault = pageFaults[channelID.lowercased()] else { return nil }
        pageFaultReads[channelID.lowercased(), default: 0] += 1
        return fault
    }

    /// Serves `record` as the signed prekey record (`signed_pre_key` and its signature) of
    /// `device` in the key bundle routes (`GET /keys/{user_id}/bundles`,
    /// `GET /keys/{device_id}/bundle`): to the device making the request when it is `viewer`, or
    /// to everyone when `viewer` is `nil`. A viewer's own setting wins over the one for everyone;
    /// ``ServedRecord/current`` for everyone clears every setting of the device. Applies to
    /// devices that have a stored bundle (``ServedRecord/absent`` hides it); the stored bundle
    /// itself is never changed.
    public func serveRecord(device: String, record: ServedRecord, toViewer viewer: String? = nil) {
        recordFaults.set(device: device, record, viewer: viewer)
    }

    /// What `device`'s record is served as to `viewer`.
    func servedRecord(device: String, viewer: String) -> ServedRecord {
        recordFaults.isEmpty ? .current : recordFaults.served(device: device, viewer: viewer)
    }

    /// Makes the next `count` posts (`POST /channels/{id}/messages`) of `contentType` answer 201
    /// with a message (a fresh id, dated now) that is never stored nor published: a server that
    /// loses them. Replaces what was left for that content type; 0 clears it. Posts the server
    /// refuses anyway (not a member, a bad body) are refused as usual and not counted.
    public func dropPosts(contentType: String, count: Int) {
        postFaults.drop(contentType: contentType, count: count)
    }

    /// Stores each of the next `count` posts of `contentType` that go through twice: as usual,
    /// then a copy as ``repost(messageID:channelID:)`` makes it (the same sender, sender device,
    /// content and content type, a new id and time), published as its own `message.new` — a
    /// post the server (or a retrying client) wrote twice. Replaces what was left for that
    /// content type; 0 clears it. A dropped or held post is not counted.
    public func duplicatePosts(contentType: String, count: Int) {
        postFaults.duplicate(contentType: contentType, count: count)
    }

    /// Stores the copy of `message` that ``duplicatePosts(contentType:count:)`` asks for, if it
    /// does (after the post itself was stored).
    /// - Throws: GRDB's `DatabaseError`.
    func duplicateIfAsked(_ message: StoredMessage) async throws {
        guard postFaults.takeDuplicate(contentType: message.contentType), let writer else { return }
        var copy = message
        copy.id = UUID().uuidString.lowercased()
        if try await writer.store(copy) != nil { duplicatedPostCount += 1 }
    }

    /// Holds every post of `contentType` made with a token of `fromDevice` (`nil`: any content
    /// type, any device), until ``releasePosts()``: each answers 201 at once with the id it
    /// will have, and is stored and published only at release, dated then. Calls add up; a post
    /// matching a ``dropPosts(contentType:count:)`` is dropped rather than held.
    public func holdPosts(contentType: String?, fromDevice deviceID: String?) {
        postFaults.add(.init(contentType: contentType, deviceID: deviceID?.lowercased()))
    }

    /// Ends every hold and stores and publishes the held posts, oldest first, each dated now
    /// (strictly after its channel's newest row); returns their ids. A post whose channel was
    /// deleted meanwhile is lost.
    /// - Throws: ``FaultError/notAttached`` (nothing is released), GRDB's `DatabaseError`.
    @discardableResult
    public func releasePosts() async throws -> [String] {
        guard let writer else { throw FaultError.notAttached }
        var released: [String] = []
        for message in postFaults.release() {
            if let stored = try await writer.store(message) { released.append(stored.id) }
        }
        return released
    }

    /// The number of posts held now (``holdPosts(contentType:fromDevice:)``).
    public var heldPostCount: Int { postFaults.held.count }

    /// Whether a post by `deviceID`'s token is dropped, held (and kept) or goes through.
    func interceptPost(_ message: StoredMessage, postedBy deviceID: String) -> PostInterception? {
        let interception = postFaults.intercept(message, postedBy: deviceID)
        if interception == .dropped { droppedPostCount += 1 }
        return interception
    }

    /// How many posts ``dropPosts(contentType:count:)`` dropped so far.
    public private(set) var droppedPostCount = 0
    /// How many posts ``duplicatePosts(contentType:count:)`` stored a second time so far.
    public private(set) var duplicatedPostCount = 0

    /// Posts the message `messageID` again into `channelID` (any channel, its own included): the
    /// same sender, sender device, content, content type, protocol version and reply, with a new
    /// id and time, published as a new `message.new`. Returns the new id.
    /// - Throws: ``FaultError/messageNotFound(_:)``, ``FaultError/channelNotFound(_:)``,
    ///   ``FaultError/notAttached``; GRDB's `DatabaseError`.
    @discardableResult
    public func repost(messageID: String, channelID: String) async throws -> String {
        guard let writer else { throw FaultError.notAttached }
        guard var message = try await writer.message(messageID.lowercased()) else { throw FaultError.messageNotFound(messageID) }
        message.id = UUID().uuidString.lowercased()
        message.channelID = channelID.lowercased()
        message.visibleTo = nil
        guard let stored = try await writer.store(message) else { throw FaultError.channelNotFound(channelID) }
        return stored.id
    }

    /// Stores a forged row in `channelID` as if `userID`'s device `deviceID` had posted it
    /// (neither needs to be a member; the device need not exist), dated now, and publishes it:
    /// to every member, or — with `visibleTo` — only to that device, whose pages alone show it
    /// and whose sockets alone get its `message.new` (and its edit or delete). Returns its id.
    /// - Throws: ``FaultError/userNotFound(_:)``, ``FaultError/channelNotFound(_:)``,
    ///   ``FaultError/notAttached``; GRDB's `DatabaseError`.
    @discardableResult
    public func postAs(userID: String, deviceID: String?, channelID: String, contentType: String, content: String,
                       visibleTo: String? = nil, protocolVersion: Int = 2) async throws -> String {
        guard let writer else { throw FaultError.notAttached }
        let message = StoredMessage(
            id: UUID().uuidString.lowercased(), channelID: channelID.lowercased(), senderID: userID.lowercased(),
            senderDeviceID: deviceID?.lowercased(), content: content, contentType: contentType, protocolVersion: protocolVersion,
            replyToID: nil, createdAt: 0, visibleTo: visibleTo?.lowercased()
        )
        guard let stored = try await writer.store(message) else { throw FaultError.channelNotFound(channelID) }
        return stored.id
    }

    /// Clears every fault. Posts still held are discarded (``releasePosts()`` first to keep
    /// them); rows already forged or reposted stay, forged rows still shown to their one device.
    public func reset() {
        pageFaults = [:]
        omittedRows = [:]
        recordFaults = RecordFaults()
        postFaults = PostFaults()
        pendingFailures = []
        dropSocketsAfterFrames = nil
        duplicateEventProbability = 0
        eventDelay = nil
        reorderEventProbability = 0
        silent = false
        ignoreClientFrames = false
        refuseUpgradesStatus = nil
        refuseUpgradesRetryAfter = nil
        pendingDrops = 0
        accessTokensExpiredBefore = nil
        commitDelayLimit = nil
        tieRunLength = nil
        hiddenSenderDevice = nil
    }

    /// Whether this event frame is duplicated (a draw when the probability is between 0 and 1).
    func drawDuplicate() -> Bool { draw(duplicateEventProbability) }

    /// Whether this event frame is held back for the next one.
    func drawReorder() -> Bool { draw(reorderEventProbability) }

    /// The commit delay of one write under ``delayCommits(upTo:)``, or `nil` when it is off.
    func drawCommitDelay() -> Duration? {
        guard let limit = commitDelayLimit else { return nil }
        let micros = max(0, limit.microseconds)
        return .microseconds(micros == 0 ? 0 : Int64(random.next() % UInt64(micros + 1)))
    }

    private func draw(_ probability: Double) -> Bool {
        if probability <= 0 { return false }
        if probability >= 1 { return true }
        return random.unit() < probability
    }

    private static func clamped(_ probability: Double) -> Double {
        probability.isFinite ? min(max(probability, 0), 1) : 0
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
