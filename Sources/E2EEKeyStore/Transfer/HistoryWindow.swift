/// Which messages of a primary's timeline a history part covers (docs/spec/protocol.md §11.7):
/// the store's side of the user's history scope.
@_spi(StoreInternals) public enum HistoryWindow: Sendable, Equatable {
    /// No history: the part is empty.
    case nothing
    /// Messages whose server `created_at` is at or after this time.
    case since(StoreTime)
    /// Every message.
    case everything

    /// The lowest `created_at` taken, or `nil` for ``nothing``.
    var lowerBound: Int64? {
        switch self {
        case .nothing: nil
        case .since(let time): time.microseconds
        case .everything: Int64.min
        }
    }
}

/// The bounds of a history part (docs/spec/protocol.md §8.9, §11.2): a new device accepts at
/// most 1,000,000 records and 256 MiB of records in one transfer, so a primary sends no more.
@_spi(StoreInternals) public struct HistoryBudget: Sendable, Equatable {
    /// 256 MiB: the most record bytes a new device accepts in one transfer.
    public static let maxTransferBytes = 256 << 20
    /// The most records a new device accepts in one transfer.
    public static let maxTransferRecords = 1_000_000

    /// Record bytes (each whole, `kind` to the body's last byte) the part may carry.
    public var bytes: Int
    /// Records the part may carry.
    public var records: Int

    /// A budget of `bytes` and `records` (the caller subtracts what the trust part and any
    /// earlier phase used).
    public init(bytes: Int = Self.maxTransferBytes, records: Int = Self.maxTransferRecords) {
        self.bytes = bytes
        self.records = records
    }

    /// Bytes of a whole message record with a payload of `payloadCount` bytes.
    static func messageRecordBytes(payloadCount: Int) -> Int { 6 + 73 + payloadCount }
    /// Bytes of a whole deleted record.
    static let deletedRecordBytes = 6 + 32
}
