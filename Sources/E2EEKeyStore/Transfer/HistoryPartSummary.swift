/// What one history part held once produced (docs/spec/protocol.md §11.7): the manifest's
/// `record_count` and `truncated`, and what was left out.
@_spi(StoreInternals) public struct HistoryPartSummary: Sendable, Equatable {
    /// Records handed to the visitor.
    public var recordCount = 0
    /// Bytes of those records, each whole.
    public var byteCount = 0
    /// Message records among them.
    public var messageCount = 0
    /// Deleted records among them (phase 2 only).
    public var deletedCount = 0
    /// `true` when the budget cut the part at its oldest end.
    public var truncated = false
    /// Rows left out although in the window: a payload that does not read as a shown message
    /// (§6.1), an id that is not a UUID, a sender the server no longer names.
    public var skipped = 0
    /// The snapshot mark: the change sequence phase 2 lists changes after.
    public var mark: Int64 = 0

    /// An empty summary.
    public init() {}
}
