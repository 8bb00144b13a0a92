import E2EEKeyStore

extension Account {
    /// The channels whose last catch-up failed, with why (docs/spec/sync.md guarantee 10): each failure
    /// stayed with its channel while the others, the pending queue and key maintenance went on.
    /// A channel leaves the list when it catches up again.
    public func channelSyncFailures() async -> [ChannelSyncFailure] {
        await channelFailures.all()
    }

    /// Records a failure of `channelID`'s catch-up (or of channel-less work when `nil`) and
    /// surfaces it as ``AccountEvent/channelSyncFailed(_:)``.
    func recordSyncFailure(channelID: String?, _ error: any Error) async {
        let failure = ChannelSyncFailure(channelID: channelID, reason: String(describing: error), at: configuration.now())
        await channelFailures.record(failure)
        broadcaster.publish(.channelSyncFailed(failure))
    }
}
