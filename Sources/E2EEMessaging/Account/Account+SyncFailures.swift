import E2EEKeyStore

extension Account {
    /// The channels whose last catch-up failed, with why and when each is read again
    /// (docs/spec/sync.md guarantee 10): each failure stayed with its channel while the others,
    /// the pending queue and key maintenance went on. A channel leaves the list when it catches
    /// up again.
    public func channelSyncFailures() async -> [ChannelSyncFailure] {
        await channelFailures.all()
    }

    /// Records a failure of `channelID`'s catch-up (with its backoff) or of channel-less work
    /// when `nil`, and surfaces it as ``AccountEvent/channelSyncFailed(_:)``.
    func recordSyncFailure(channelID: ChannelID?, _ error: any Error) async {
        let now = configuration.now()
        let failure: ChannelSyncFailure
        if let channelID {
            var retryAfter: Int?
            if case .rateLimited(let seconds)? = error as? ServerError { retryAfter = seconds ?? 60 }
            failure = await channelFailures.recordChannel(channelID, reason: String(describing: error), at: now, retryAfter: retryAfter)
        } else {
            failure = ChannelSyncFailure(channelID: nil, reason: String(describing: error), at: now)
            await channelFailures.record(failure)
        }
        broadcaster.publish(.channelSyncFailed(failure))
    }
}
