import E2EEKeyStore

/// The latest failure per channel and when each failed or deferred channel is read again
/// (docs/spec/sync.md guarantee 10). A channel's backoff doubles with each failure in a row,
/// from ``firstBackoff`` to ``longestBackoff``, and is never shorter than the server's
/// `Retry-After`; it is forgotten when the channel catches up. One retry task at a time
/// reads the channels that are due.
actor ChannelFailureLog {
    /// The wait after a channel's first failure in a row, in seconds.
    static let firstBackoff: Int64 = 5
    /// The longest wait between two reads of a failing channel, in seconds.
    static let longestBackoff: Int64 = 600

    private var failures: [ChannelID?: ChannelSyncFailure] = [:]
    private var inARow: [ChannelID: Int] = [:]
    /// Channels a catch-up left for later (its request budget was spent), and when they are due.
    private var deferred: [ChannelID: StoreTime] = [:]
    private var retry: Task<Void, Never>?
    /// Set when the account shuts down: no retry is scheduled any more.
    private var retriesStopped = false
    /// Every channel the last catch-up read failed with the server's kind of failure: the
    /// server, not the channels, failed, so the next catch-up reads them all at once.
    private(set) var serverFailedLast = false

    /// Records whether every channel of the last catch-up failed with the server's kind of failure.
    func setServerFailed(_ failed: Bool) { serverFailedLast = failed }

    /// Records `failure` of work that belongs to no channel (replacing the earlier one).
    func record(_ failure: ChannelSyncFailure) {
        failures[failure.channelID] = failure
    }

    /// Records that `channelID`'s catch-up failed at `now` and sets when it is read again.
    func recordChannel(_ channelID: ChannelID, reason: String, at now: StoreTime, retryAfter: Int?) -> ChannelSyncFailure {
        let count = (inARow[channelID] ?? 0) + 1
        inARow[channelID] = count
        let doubled = Self.firstBackoff << Int64(min(count - 1, 16))
        let wait = max(min(doubled, Self.longestBackoff), Int64(max(retryAfter ?? 0, 0)))
        let failure = ChannelSyncFailure(channelID: channelID, reason: reason, at: now,
                                         retryAt: StoreTime(microseconds: now.microseconds + wait * 1_000_000))
        failures[channelID] = failure
        deferred[channelID] = nil
        return failure
    }

    /// Leaves `channelIDs` for a later catch-up, due at `time`.
    func postpone(_ channelIDs: [ChannelID], until time: StoreTime) {
        for id in channelIDs { deferred[id] = time }
    }

    /// Forgets the failure of `channelID` (it caught up).
    func clear(_ channelID: ChannelID) {
        failures[channelID] = nil
        inARow[channelID] = nil
        deferred[channelID] = nil
    }

    /// Whether `channelID` may be read at `now` (no backoff or postponement running).
    func isDue(_ channelID: ChannelID, at now: StoreTime) -> Bool {
        guard let time = waitingUntil(channelID) else { return true }
        return time.microseconds <= now.microseconds
    }

    /// The channels waiting for a later read, and the earliest time one is due.
    func waiting() -> (channels: Set<ChannelID>, earliest: StoreTime?) {
        var ids = Set(deferred.keys)
        var earliest: Int64?
        for (id, failure) in failures {
            guard let time = failure.retryAt else { continue }
            if let id { ids.insert(id) }
            earliest = min(earliest ?? time.microseconds, time.microseconds)
        }
        for time in deferred.values { earliest = min(earliest ?? time.microseconds, time.microseconds) }
        return (ids, earliest.map { StoreTime(microseconds: $0) })
    }

    /// Runs `work` after `delay` in place of any retry already waiting (never once stopped).
    func scheduleRetry(after delay: Duration, _ work: @escaping @Sendable () async -> Void) {
        guard !retriesStopped else { return }
        retry?.cancel()
        retry = Task {
            do { try await Task.sleep(for: delay) } catch { return }
            await work()
        }
    }

    /// Stops the waiting retry, if any, and any later one (the account shuts down); returns
    /// once a retry already reading has ended.
    func cancelRetry() async {
        retriesStopped = true
        let running = retry
        retry = nil
        running?.cancel()
        await running?.value
    }

    /// Every recorded failure, channel order.
    func all() -> [ChannelSyncFailure] {
        failures.values.sorted { ($0.channelID?.rawValue ?? "", $0.at.microseconds) < ($1.channelID?.rawValue ?? "", $1.at.microseconds) }
    }

    private func waitingUntil(_ channelID: ChannelID) -> StoreTime? {
        switch (failures[channelID]?.retryAt, deferred[channelID]) {
        case (let a?, let b?): StoreTime(microseconds: max(a.microseconds, b.microseconds))
        case (let a, let b): a ?? b
        }
    }
}
