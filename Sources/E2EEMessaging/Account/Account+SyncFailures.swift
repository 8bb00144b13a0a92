extension Account {
    /// The channels whose last catch-up failed, with why and when each is read again
    /// (docs/spec/sync.md guarantee 10): each failure stayed with its channel while the others,
    /// the pending queue and key maintenance went on. A channel leaves the list when it catches
    /// up again.
    public func channelSyncFailures() async -> [ChannelSyncFailure] {
        await syncEngine.failures()
    }
}
