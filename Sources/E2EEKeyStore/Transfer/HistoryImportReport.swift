/// What importing history records did (docs/spec/protocol.md §11.9), counted per rule.
@_spi(StoreInternals) public struct HistoryImportReport: Sendable, Equatable {
    /// Message records that became new transferred rows.
    public var inserted = 0
    /// Rows waiting for a key, or undecryptable for want of one, that took the transferred text.
    public var filled = 0
    /// Rows an earlier record of a transfer had imported, given this record's text (an edit in
    /// phase 2, or a retry).
    public var updated = 0
    /// Rows this device decrypted itself (or holds unencrypted): unchanged.
    public var keptOwn = 0
    /// Rows refused for a protocol violation: unchanged, still refused.
    public var keptRefused = 0
    /// Rows this device erased (a tombstone, or its own delete): unchanged.
    public var keptDeleted = 0
    /// Message records stored erased: a trusted tombstone this device holds names them (§6.7).
    public var tombstoned = 0
    /// `deleted` records that erased a row this transfer imported.
    public var erased = 0
    /// `deleted` records naming a row this transfer did not import (or none): ignored (K40).
    public var deletesIgnored = 0
    /// Records naming a message this device holds in another channel, as a control or
    /// duplicate row, or whose payload id another message already uses: ignored.
    public var conflicts = 0
    /// Message records whose payload does not read as a shown message (§6.1): ignored.
    public var invalid = 0
    /// Trust records passed in by mistake: ignored (they are the trust importer's).
    public var notHistory = 0

    /// An empty report.
    public init() {}

    /// Message and deleted records counted.
    public var recordCount: Int {
        inserted + filled + updated + keptOwn + keptRefused + keptDeleted + tombstoned + erased + deletesIgnored + conflicts + invalid
    }
}
