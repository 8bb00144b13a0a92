/// The reference server's known defects, each behind its own switch so that client tests can run
/// with and without them (docs/spec/server-api.md). ``reference`` turns every one on; ``none`` turns them all off.
public struct DevServerQuirks: Sendable, Equatable {
    /// A bundle fetch hands out the first one-time prekey without removing it: the same prekey
    /// comes back on every fetch and `one_time_pre_key_count` never falls. Off: the fetch pops it.
    public var oneTimePreKeyNeverPopped: Bool
    /// `message.new|edit|delete` are published before the row is written; the write follows
    /// ``commitDelay`` later, so a REST read right after the event can miss the row (or 404).
    /// Off: the row is committed first, then the event is published.
    public var publishBeforeCommit: Bool
    /// How long the write lags behind the event when ``publishBeforeCommit`` is on.
    public var commitDelay: Duration
    /// After a WebSocket connects, the auto-subscribe to the user's channels completes only
    /// ``subscribeGap`` later; events published in that gap are lost. Off: the subscription is in
    /// place before the handshake response is sent.
    public var lateSubscribeAfterConnect: Bool
    /// The gap used by ``lateSubscribeAfterConnect``.
    public var subscribeGap: Duration
    /// A channel created or joined after connect is not auto-subscribed: the client must send
    /// `subscribe`. Off: a socket's user is subscribed as soon as they become a member.
    public var noAutoSubscribeToLaterChannels: Bool
    /// REST writes `…Z` but WebSocket payloads write `…+00:00`. Off: both write `…Z`.
    public var socketTimestampsWithOffset: Bool
    /// Consecutive messages of a channel share `created_at` in runs of ``tieRunLength``, so a
    /// page boundary falls inside a tie (and a later message can reuse an older message's time).
    /// Not the reference server's behaviour (its times are distinct and increasing, docs/spec/server-api.md
    /// "Verified"): an opt-in stress fault, off by default and in ``reference``. Off: every
    /// message gets a distinct, increasing time.
    public var tiedTimestamps: Bool
    /// How many consecutive messages share one `created_at` when ``tiedTimestamps`` is on (≥ 2).
    public var tieRunLength: Int
    /// A refresh answers before its rotation is committed: the new refresh token is refused with
    /// 401 (and stays valid) when it is used within ``refreshTokenCommitDelay`` of being issued
    /// (docs/spec/server-api.md §1). Tokens from register and login are not affected. Off: a rotated
    /// token works at once.
    public var refreshTokenCommitLag: Bool
    /// How long a rotated refresh token is refused when ``refreshTokenCommitLag`` is on
    /// (measured on the server's clock, so a manual clock controls it).
    public var refreshTokenCommitDelay: Duration
    /// After the server refuses a rotated token for ``refreshTokenCommitLag``, the next request
    /// on the same keep-alive connection is closed without an answer, unprocessed (docs/spec/server-api.md
    /// "verified" 1: "a request after such a failure can find its keep-alive connection closed
    /// unanswered"). Off: the connection keeps working.
    public var closeConnectionAfterCommitLag: Bool

    /// Creates a quirk set; every switch defaults to the reference server's behaviour (the
    /// opt-in ``tiedTimestamps`` fault defaults to off).
    public init(
        oneTimePreKeyNeverPopped: Bool = true,
        publishBeforeCommit: Bool = true,
        commitDelay: Duration = .milliseconds(150),
        lateSubscribeAfterConnect: Bool = true,
        subscribeGap: Duration = .milliseconds(150),
        noAutoSubscribeToLaterChannels: Bool = true,
        socketTimestampsWithOffset: Bool = true,
        tiedTimestamps: Bool = false,
        tieRunLength: Int = 3,
        refreshTokenCommitLag: Bool = true,
        refreshTokenCommitDelay: Duration = .milliseconds(150),
        closeConnectionAfterCommitLag: Bool = true
    ) {
        self.oneTimePreKeyNeverPopped = oneTimePreKeyNeverPopped
        self.publishBeforeCommit = publishBeforeCommit
        self.commitDelay = commitDelay
        self.lateSubscribeAfterConnect = lateSubscribeAfterConnect
        self.subscribeGap = subscribeGap
        self.noAutoSubscribeToLaterChannels = noAutoSubscribeToLaterChannels
        self.socketTimestampsWithOffset = socketTimestampsWithOffset
        self.tiedTimestamps = tiedTimestamps
        self.tieRunLength = max(2, tieRunLength)
        self.refreshTokenCommitLag = refreshTokenCommitLag
        self.refreshTokenCommitDelay = refreshTokenCommitDelay
        self.closeConnectionAfterCommitLag = closeConnectionAfterCommitLag
    }

    /// Every quirk of the reference server switched on (and the opt-in ``tiedTimestamps`` fault off).
    public static let reference = DevServerQuirks()

    /// Every quirk switched off: a well-behaved server.
    public static let none = DevServerQuirks(
        oneTimePreKeyNeverPopped: false,
        publishBeforeCommit: false,
        lateSubscribeAfterConnect: false,
        noAutoSubscribeToLaterChannels: false,
        socketTimestampsWithOffset: false,
        tiedTimestamps: false,
        refreshTokenCommitLag: false,
        closeConnectionAfterCommitLag: false
    )
}
