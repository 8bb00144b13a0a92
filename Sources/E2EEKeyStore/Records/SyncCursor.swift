/// How far a channel's history has been fetched.
package struct SyncCursor: Sendable, Equatable {
    /// The channel.
    public var channelID: String
    /// The newest message seen.
    public var newest: TimelineCursor?
    /// The oldest message fetched so far when paging back.
    public var oldest: TimelineCursor?
    /// `true` once a page said `has_more: false`.
    public var historyComplete: Bool
    /// When it was last written.
    public var updatedAt: StoreTime

    /// Creates the value.
    public init(channelID: String, newest: TimelineCursor?, oldest: TimelineCursor?, historyComplete: Bool, updatedAt: StoreTime) {
        self.channelID = channelID
        self.newest = newest
        self.oldest = oldest
        self.historyComplete = historyComplete
        self.updatedAt = updatedAt
    }
}
