import E2EECrypto
import E2EEKeyStore

/// How an ``Account`` behaves; the defaults are docs/spec/sync.md's. Tests inject time, randomness and
/// sleeping so nothing waits real seconds.
public struct AccountConfiguration: Sendable {
    /// One-time prekeys offered after bootstrap and replenishment.
    public var oneTimePrekeyTarget: Int
    /// How long a channel's member list is trusted before a send re-reads it (5 s). Membership
    /// is never pushed (docs/spec/server-api.md), so this bounds how long a member who left can
    /// still be sent keys; the default re-reads before nearly every send.
    public var memberLifetime: Duration
    /// How long a user's device list, read to check a received message's sender, is reused
    /// before it is read again (60 s; a device not in it is always looked up afresh). A send
    /// never reuses one: it reads the lists of its recipients every time, so that a device
    /// listed a moment ago is compared, held and surfaced like any other
    /// (docs/spec/protocol.md §5.13).
    public var deviceLifetime: Duration
    /// The outbox's retries.
    public var outbox: OutboxPolicy
    /// Randomness for keys, nonces and ids.
    public var random: any RandomSource
    /// The clock.
    public var now: @Sendable () -> StoreTime
    /// Waits the given duration (the outbox's retry backoff); tests pass one that returns at once.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// At most this many messages of a channel one catch-up fetches (the newest ones); older
    /// history is paged on demand with ``Account/loadOlder(channelID:limit:)``.
    public var catchUpLimit: Int
    /// How far (in server time) behind the newest message it verified a catch-up leaves the
    /// channel's verified mark, so that the next one reads that stretch again: it covers rows
    /// committed after their event and events lost where a socket opened or dropped.
    public var catchUpOverlap: Duration
    /// At most this many bytes of message content one catch-up of a channel holds in memory
    /// before it stops (older history then is paged on demand): a server whose pages never end
    /// cannot make a catch-up grow without bound.
    public var catchUpByteLimit: Int = 8 << 20
    /// How far past this device's own clock a server timestamp may move a channel's verified
    /// mark. The server sets `created_at`; a mark moved past the real present by a forged one
    /// would make later catch-ups stop early and lose what lies between. The default, zero,
    /// never lets a mark pass this device's clock (a server clock running ahead only makes
    /// catch-ups read a little more again).
    public var maxClockSkew: Duration = .zero
    /// The recipient policy for channels with none set in the store (``Account/setRecipientPolicy(_:channelID:)``),
    /// as ``Account/recipientPolicy(channelID:)`` reports it. It no longer decides who gets keys:
    /// new members and devices are held whatever the policy (docs/spec/protocol.md §5.11–§5.13).
    public var recipientPolicy: RecipientPolicy? = nil
    /// Events each ``Account/events()`` subscriber buffers before it loses the oldest (it is then
    /// sent ``AccountEvent/reloadNeeded``, never left with a silent gap).
    public var eventBufferLimit: Int = 10_000
    /// Whether registering creates a user key (docs/spec/protocol.md §10, text 1.3): ``LinkingMode/off``
    /// by default.
    public var linking: LinkingMode = .off
    /// Where the key sealing the primary file comes from: a keychain item of this installation
    /// only (`PrimaryFileKeychain` of E2EEKeyStore). Without one, no user key can be created here
    /// (``MessagingError/primaryFileUnprotected``).
    public var primaryFileKeychain: (any PrimaryFileKeychain)? = nil
    /// How often a connected primary runs its renewal besides start-up and catch-ups (a day,
    /// docs/spec/protocol.md §10.13); tests shorten it.
    public var ownRenewalInterval: Duration = .seconds(86_400)
    /// How many received rows may share a transaction and how long they may wait for others
    /// (issue 47, decision 2). Not API: the ingest benchmark compares bounds.
    @_spi(Benchmarks) public var receiveCommitWindow: CommitWindow = .standard
    #if DEBUG
    /// Debug builds only: moves the clock text 1.3's certificate rules read (expiry, key-change
    /// gates, the clock mark; docs/spec/protocol.md §10.19) by this much, for tests. Release
    /// builds have no such field and read only the system clock.
    public var debugClockOffset: Duration = .zero
    /// Debug builds only: called at each ``TestCrashPoint`` the account passes; a test (or the
    /// tool's `E2EE_TEST_CRASH_AT`) kills the process there. Release builds have no such field.
    public var debugCrash: (@Sendable (TestCrashPoint) -> Void)? = nil
    /// Debug builds only: seconds added, at each reading, to the clock text 1.3's rules read and
    /// to a link attempt's idle clock — a clock a test moves while the account runs (a grant held
    /// past its 15 minutes, a new device's 10 idle minutes). Release builds have no such field.
    public var debugClockShift: (@Sendable () -> Int64)? = nil
    /// Debug builds only: at most this many records in each chunk of a transfer this primary
    /// sends (docs/spec/protocol.md §11.4), so a test account fills more than a window with a
    /// few records; `nil`: as many as fit. Release builds have no such field.
    public var debugTransferRecordsPerChunk: Int? = nil
    /// Debug builds only: at most this many received rows in one transaction (the receive
    /// commit window's row bound, 5,000 otherwise), so a test's catch-up of a few hundred
    /// messages spans several transactions. Release builds have no such field.
    public var debugReceiveRowsPerCommit: Int? = nil
    #endif

    /// The defaults.
    public init(oneTimePrekeyTarget: Int = 50, memberLifetime: Duration = .seconds(5), deviceLifetime: Duration = .seconds(60),
                outbox: OutboxPolicy = OutboxPolicy(), random: any RandomSource = SystemRandom(), now: @escaping @Sendable () -> StoreTime = { .now() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: max(.zero, $0)) },
                catchUpLimit: Int = 5_000, catchUpOverlap: Duration = .seconds(10)) {
        self.oneTimePrekeyTarget = oneTimePrekeyTarget
        self.memberLifetime = memberLifetime
        self.deviceLifetime = deviceLifetime
        self.outbox = outbox
        self.random = random
        self.now = now
        self.sleep = sleep
        self.catchUpLimit = max(1, catchUpLimit)
        self.catchUpOverlap = max(.zero, catchUpOverlap)
    }
}
