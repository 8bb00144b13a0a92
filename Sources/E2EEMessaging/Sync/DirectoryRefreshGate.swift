/// Coalesces and rate-limits the channel-list refreshes that socket events naming unknown
/// channels would cause: events are hints, and anyone who can make the
/// server emit them (any member, any channel on the reference server) must not be able to turn
/// each one into a `GET /channels` and keep the victim rate-limited. Concurrent callers share
/// one refresh; after a refresh, another starts only once ``minimumInterval`` has passed —
/// meanwhile the cached list answers. Channels this device creates, joins or is told about by
/// `channel.new` are stored directly and never wait for this.
actor DirectoryRefreshGate {
    /// The default spacing between event-driven refreshes.
    static let defaultInterval: Duration = .seconds(10)

    /// Shortest time between two refreshes started here.
    let minimumInterval: Duration
    /// The time now, on a monotonic scale (tests pass a manual one).
    private let now: @Sendable () -> Duration
    private var lastStarted: Duration?
    private var inFlight: Task<[ChatChannel], any Error>?
    /// Refreshes actually started (for reports and tests).
    private(set) var refreshesStarted = 0

    init(minimumInterval: Duration = DirectoryRefreshGate.defaultInterval, now: (@Sendable () -> Duration)? = nil) {
        self.minimumInterval = minimumInterval
        let clock = ContinuousClock()
        let origin = clock.now
        self.now = now ?? { origin.duration(to: clock.now) }
    }

    /// The refreshed list when a refresh runs (or is running) now; `nil` when one ran less than
    /// ``minimumInterval`` ago (use the cached list).
    /// - Throws: what `refresh` throws.
    func refreshIfDue(_ refresh: @escaping @Sendable () async throws -> [ChatChannel]) async throws -> [ChatChannel]? {
        if let inFlight { return try await inFlight.value }
        let now = now()
        if let lastStarted, now - lastStarted < minimumInterval { return nil }
        lastStarted = now
        refreshesStarted += 1
        let task = Task { try await refresh() }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }
}
