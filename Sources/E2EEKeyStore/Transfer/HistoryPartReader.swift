import E2EECrypto
import Foundation
import GRDB

/// Reads a primary's history as transfer records (docs/spec/protocol.md §11.7, §11.8), in one
/// read transaction, handing them to a visitor in batches: memory holds one batch, never the
/// history. Only messages this device shows are read — `message` rows it decrypted (its own
/// included) whose stored payload reads as a §6.1 message, in channels it has not left — each
/// with the payload bytes exactly as stored.
struct HistoryPartReader {
    let db: Database
    let sealer: Sealer
    let batchSize: Int
    let visit: ([TransferRecord]) throws -> Void
    private(set) var summary = HistoryPartSummary()
    private var batch: [TransferRecord] = []

    init(db: Database, sealer: Sealer, batchSize: Int, visit: @escaping ([TransferRecord]) throws -> Void) {
        self.db = db
        self.sealer = sealer
        self.batchSize = max(1, batchSize)
        self.visit = visit
    }

    /// A channel this device left and did not rejoin sends nothing.
    static let notLeftSQL = "NOT EXISTS (SELECT 1 FROM departed_channels d WHERE d.channel_id = t.channel_id AND d.rejoined_at IS NULL)"
    /// A message shown with its text: decrypted, its payload held.
    static let shownSQL = "t.kind = 'message' AND t.state = 'decrypted' AND t.plaintext IS NOT NULL"
    /// The columns ``record(_:)`` reads, in this order.
    static let columns = "t.message_id, t.channel_id, t.sender_user_id, t.sender_device_id, t.created_at, t.state, t.plaintext, t.edited_at"

    // MARK: Phase 1

    /// Phase 1: every shown message in `lowerBound`…, channel by channel (in id order), each
    /// channel oldest first along `timeline_page`; cut at the oldest end to `budget`.
    mutating func readSnapshot(from lowerBound: Int64, budget: HistoryBudget) throws {
        let filter = "\(Self.shownSQL) AND t.created_at >= ? AND \(Self.notLeftSQL)"
        let cut = try cutPoint(filter: filter, arguments: [lowerBound], budget: budget)
        let channels = try String.fetchCursor(db, sql: "SELECT DISTINCT channel_id FROM timeline ORDER BY channel_id")
        // The channel list is read first (a cursor over the index's distinct values), so that
        // the per-channel statement below never runs while it is open on the same table.
        var channelIDs: [String] = []
        while let channel = try channels.next() { channelIDs.append(channel) }
        let statement = try db.makeStatement(sql: """
            SELECT \(Self.columns) FROM timeline t
            WHERE t.channel_id = ? AND \(filter) AND (t.created_at, t.message_id) >= (?, ?)
            ORDER BY t.created_at, t.message_id
            """)
        for channel in channelIDs {
            let rows = try Row.fetchCursor(statement, arguments: [channel, lowerBound, cut.createdAt, cut.messageID])
            while let row = try rows.next() { try take(row) }
        }
        try flush()
    }

    // MARK: Phase 2

    /// Phase 2: the rows changed after `mark` in the window — a deleted row as a `deleted`
    /// record, a shown one as a message record (an arrival or an edit) — oldest first, cut at
    /// the oldest end to `budget`.
    mutating func readChanges(after mark: Int64, from lowerBound: Int64, budget: HistoryBudget) throws {
        summary.mark = mark
        let filter = """
            t.message_id IN (SELECT message_id FROM history_changes WHERE seq > ?) AND t.kind = 'message'
            AND (t.state = 'deleted' OR (t.state = 'decrypted' AND t.plaintext IS NOT NULL))
            AND t.created_at >= ? AND \(Self.notLeftSQL)
            """
        let cut = try cutPoint(filter: filter, arguments: [mark, lowerBound], budget: budget)
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \(Self.columns) FROM timeline t WHERE \(filter) AND (t.created_at, t.message_id) >= (?, ?)
            ORDER BY t.created_at, t.message_id
            """, arguments: [mark, lowerBound, cut.createdAt, cut.messageID])
        while let row = try rows.next() { try take(row) }
        try flush()
    }

    // MARK: The cut

    /// Where the part starts: the oldest `(created_at, message_id)` kept so that the newest
    /// rows fit `budget` (the lowest position when everything fits). One aggregate pass first;
    /// only a part over budget walks its rows newest first (a sort of keys and lengths).
    private mutating func cutPoint(filter: String, arguments: StatementArguments, budget: HistoryBudget) throws -> (createdAt: Int64, messageID: String) {
        let whole = (createdAt: Int64.min, messageID: "")
        let length = "CASE WHEN t.state = 'deleted' THEN \(HistoryBudget.deletedRecordBytes) ELSE 6 + 73 + length(t.plaintext) - \(Sealer.overhead) END"
        guard let totals = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(\(length)), 0) FROM timeline t WHERE \(filter)",
                                            arguments: arguments) else { return whole }
        let count: Int = totals[0], bytes: Int = totals[1]
        guard count > budget.records || bytes > budget.bytes else { return whole }
        summary.truncated = true
        let rows = try Row.fetchCursor(db, sql: """
            SELECT t.created_at, t.message_id, \(length) FROM timeline t WHERE \(filter) ORDER BY t.created_at DESC, t.message_id DESC
            """, arguments: arguments)
        var keptCount = 0, keptBytes = 0
        var oldest: (createdAt: Int64, messageID: String)?
        while let row = try rows.next() {
            let size: Int = row[2]
            guard keptCount + 1 <= budget.records, keptBytes + size <= budget.bytes else { break }
            keptCount += 1
            keptBytes += size
            oldest = (row[0], row[1])
        }
        // Nothing fits: start past every row.
        return oldest ?? (Int64.max, "\u{10FFFF}")
    }

    // MARK: Records

    private mutating func take(_ row: Row) throws {
        guard let record = try record(row) else {
            summary.skipped += 1
            return
        }
        switch record {
        case .message(let message):
            summary.messageCount += 1
            summary.byteCount += HistoryBudget.messageRecordBytes(payloadCount: message.payload.count)
        case .deleted:
            summary.deletedCount += 1
            summary.byteCount += HistoryBudget.deletedRecordBytes
        case .trust:
            break
        }
        summary.recordCount += 1
        batch.append(record)
        if batch.count >= batchSize { try flush() }
    }

    private mutating func flush() throws {
        guard !batch.isEmpty else { return }
        try visit(batch)
        batch.removeAll(keepingCapacity: true)
    }

    /// The record of a row, or `nil` when it is not one to send.
    private func record(_ row: Row) throws -> TransferRecord? {
        let t = TimelineStore.table
        let messageText: String = try row.decode(at: 0, column: "message_id", table: t)
        guard let messageID = try? WireUUID(text: messageText),
              let channelID = try? WireUUID(text: try row.decode(at: 1, column: "channel_id", table: t) as String) else { return nil }
        let state: String = try row.decode(at: 5, column: "state", table: t)
        if state == "deleted" { return .deleted(channelID: channelID, messageID: messageID) }
        guard let senderText: String = try row.decodeIfPresent(at: 2, column: "sender_user_id", table: t),
              let deviceText: String = try row.decodeIfPresent(at: 3, column: "sender_device_id", table: t),
              let senderID = try? WireUUID(text: senderText), let deviceID = try? WireUUID(text: deviceText) else { return nil }
        let createdAt: Int64 = try row.decode(at: 4, column: "created_at", table: t)
        guard createdAt >= 0, let sealed: Data = try row.decodeIfPresent(at: 6, column: "plaintext", table: t) else { return nil }
        let payload = try sealer.open(sealed, table: t, column: "plaintext", rowID: messageText)
        // Only what this device shows as a message: a payload that reads, and is no control payload.
        guard let parsed = try? MessagePayload(json: payload), !parsed.isControl else { return nil }
        let editedAt: Int64? = try row.decodeIfPresent(at: 7, column: "edited_at", table: t)
        guard let record = try? MessageRecord(channelID: channelID, messageID: messageID, senderID: senderID, senderDeviceID: deviceID,
                                              createdAt: UInt64(createdAt), edited: editedAt != nil, payload: payload) else { return nil }
        return .message(record)
    }
}
