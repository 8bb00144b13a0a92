/// What one ``Account/loadOlder(channelID:limit:)`` call did.
public struct OlderHistory: Sendable, Equatable {
    /// Messages that entered the timeline (readable or not; sender key distributions and
    /// copies of stored messages are not counted).
    public var added: Int
    /// `true` when the store holds the channel's history back to its first message: there is
    /// nothing older to load.
    public var reachedStart: Bool

    /// Creates the value.
    public init(added: Int, reachedStart: Bool) {
        self.added = added
        self.reachedStart = reachedStart
    }
}
