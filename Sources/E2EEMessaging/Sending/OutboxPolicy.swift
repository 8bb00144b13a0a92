/// How the outbox retries (docs/spec/sync.md "Outbox"): at most `maxAttempts` attempts the server answers
/// with an error, waiting `backoff[n-1]` after the n-th, then `.failed` (manual retry).
/// An unreachable server is not a failure: after `maxAttempts` unanswered tries in a row the
/// channel's entries wait, `.queued`, until the server answers a catch-up (connect, poll,
/// `sync`), a new message is queued in the channel, the app calls
/// ``Account/resumeOutbox()``, or `unreachableRetryInterval` passes.
public struct OutboxPolicy: Sendable {
    /// POST attempts before an entry is failed.
    public var maxAttempts: Int
    /// The wait after each failed attempt (the last value repeats).
    public var backoff: [Duration]
    /// How many recent messages are read to reconcile an unknown outcome.
    public var reconcileWindow: Int
    /// The time (real time) between tries of entries waiting for an unreachable server while
    /// nothing else wakes them (30 s).
    public var unreachableRetryInterval: Duration = .seconds(30)

    /// The defaults: 3 attempts, 1 s then 4 s, 50 recent messages.
    public init(maxAttempts: Int = 3, backoff: [Duration] = [.seconds(1), .seconds(4)], reconcileWindow: Int = 50) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.reconcileWindow = reconcileWindow
    }

    /// The wait after failed attempt number `attempt` (1-based).
    func delay(afterAttempt attempt: Int) -> Duration {
        guard let last = backoff.last else { return .zero }
        return attempt - 1 < backoff.count ? backoff[max(attempt - 1, 0)] : last
    }
}
