/// What this process knows about rollbacks (docs/spec/protocol.md §3): the channels a catch-up of this
/// process has read to the present (nothing is sent in a channel before), and the one renewal
/// of keys running at a time after a rollback was detected.
actor RollbackGuard {
    private var caughtUp: Set<ChannelID> = []
    private var renewal: Task<Void, any Error>?

    /// Whether a catch-up of this process has read `channelID` to the present.
    func isCaughtUp(_ channelID: ChannelID) -> Bool {
        caughtUp.contains(channelID)
    }

    /// A catch-up of this process read `channelID` to the present.
    func markCaughtUp(_ channelID: ChannelID) {
        caughtUp.insert(channelID)
    }

    /// Runs `renew` unless a renewal is already running, in which case it waits for that one.
    /// - Throws: what `renew` throws.
    func renewOnce(_ renew: @escaping @Sendable () async throws -> Void) async throws {
        if let renewal { return try await renewal.value }
        let task = Task { try await renew() }
        renewal = task
        defer { renewal = nil }
        try await task.value
    }
}
