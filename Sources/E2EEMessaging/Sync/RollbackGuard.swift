/// The channels a catch-up of this process has read to the present (docs/spec/protocol.md §3.13):
/// nothing is sent in a channel before, because a restored store learns only by reading what a
/// later copy of itself sent. Process memory on purpose: a restart must read again.
actor RollbackGuard {
    private var caughtUp: Set<ChannelID> = []

    /// Whether a catch-up of this process has read `channelID` to the present.
    func isCaughtUp(_ channelID: ChannelID) -> Bool {
        caughtUp.contains(channelID)
    }

    /// A catch-up of this process read `channelID` to the present.
    func markCaughtUp(_ channelID: ChannelID) {
        caughtUp.insert(channelID)
    }
}
