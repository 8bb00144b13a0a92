/// Lets an action through at most once per `interval` (monotonic clock): what makes a flood of
/// untrusted hints (forged `keys.low_otp` frames) cheap to ignore.
actor ReactionThrottle {
    /// Shortest time between two allowed actions.
    let interval: Duration
    private let clock = ContinuousClock()
    private var last: ContinuousClock.Instant?

    init(interval: Duration) {
        self.interval = interval
    }

    /// Whether the action may run now (and, if so, the interval starts again).
    func allow() -> Bool {
        let now = clock.now
        if let last, last.duration(to: now) < interval { return false }
        last = now
        return true
    }
}
