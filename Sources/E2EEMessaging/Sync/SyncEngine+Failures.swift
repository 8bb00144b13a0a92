/// The engine's record of what failed (docs/spec/sync.md guarantee 10): each failure stays with
/// its channel, is published, and is what the app reads back from ``Account/channelSyncFailures()``.
extension SyncEngine {
    /// The channels whose last catch-up failed (and channel-less work that failed), channel order.
    func failures() async -> [ChannelSyncFailure] {
        await channelFailures.all()
    }

    /// Records a failure of `channelID`'s catch-up (with its backoff) or of channel-less work
    /// when `nil`, and surfaces it as ``AccountEvent/channelSyncFailed(_:)``.
    func recordSyncFailure(channelID: ChannelID?, _ error: any Error) async {
        let now = self.now()
        let failure: ChannelSyncFailure
        if let channelID {
            var retryAfter: Int?
            if case .rateLimited(let seconds)? = error as? ServerError { retryAfter = seconds ?? 60 }
            failure = await channelFailures.recordChannel(channelID, reason: String(describing: error), at: now, retryAfter: retryAfter)
        } else {
            failure = ChannelSyncFailure(channelID: nil, reason: String(describing: error), at: now)
            await channelFailures.record(failure)
        }
        events.publish(.channelSyncFailed(failure))
    }

    /// Stops the retry of failed channels waiting to run (the account shuts down).
    func stopRetries() async {
        await channelFailures.cancelRetry()
    }
}
