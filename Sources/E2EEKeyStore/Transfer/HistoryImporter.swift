import E2EECrypto
import Foundation
import GRDB

/// Applies history records at a new device (docs/spec/protocol.md §11.9) inside the caller's
/// transaction. Rows are keyed by (channel, server message id). A message record fills only
/// what this device could not read: a new row, a row waiting for a key, or one undecryptable
/// for want of a key (`not_a_recipient`, shown as sent before this device); a row it decrypted
/// itself, holds unencrypted, erased, or refused for a protocol violation stays as it is. A
/// `deleted` record erases only a row this transfer imported (K40). A trusted tombstone this
/// device holds erases a transferred message as it would a received one (§6.7).
struct HistoryImporter {
    let db: Database
    let store: KeyStore
    let transferID: String
    let source: String
    private(set) var report = HistoryImportReport()

    init(db: Database, store: KeyStore, transferID: String, source: String) {
        self.db = db
        self.store = store
        self.transferID = transferID
        self.source = source
    }

    /// The stored reasons of a row undecryptable for want of a key (the only refusals a
    /// transfer fills): this device was not among the envelope's recipients.
    static let wantOfKeyReasons: Set<String> = ["not_a_recipient"]

    static let insertSQL = """
        INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, failure_reason,
                              plaintext, is_own, kind, edited_at, payload_id, payload_key, history_transfer_id, history_source_device_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, 0, 'message', ?, ?, ?, ?, ?)
        """
    static let fillSQL = """
        UPDATE timeline SET state = ?, failure_reason = NULL, plaintext = ?, edited_at = ?, payload_id = ?, payload_key = ?,
                            sender_user_id = COALESCE(sender_user_id, ?), sender_device_id = COALESCE(sender_device_id, ?), history_transfer_id = ?, history_source_device_id = ?
        WHERE message_id = ?
        """

    mutating func apply(_ records: [TransferRecord]) throws {
        for record in records {
            switch record {
            case .message(let message): try apply(message)
            case .deleted(let channel, let message): try applyDeleted(channelID: channel.text, messageID: message.text)
            case .trust: report.notHistory += 1
            }
        }
    }

    /// What this device holds for a server id.
    private struct Existing {
        var channelID: String
        var kind: String
        var state: String
        var reason: String?
        var transferID: String?
        var senderUserID: String?
    }

    private func existing(_ messageID: String) throws -> Existing? {
        guard let row = try db.row("""
            SELECT channel_id, kind, state, failure_reason, history_transfer_id, sender_user_id FROM timeline WHERE message_id = ?
            """, [messageID]) else { return nil }
        let t = TimelineStore.table
        return Existing(channelID: try row.decode(at: 0, column: "channel_id", table: t), kind: try row.decode(at: 1, column: "kind", table: t),
                        state: try row.decode(at: 2, column: "state", table: t), reason: try row.decodeIfPresent(at: 3, column: "failure_reason", table: t),
                        transferID: try row.decodeIfPresent(at: 4, column: "history_transfer_id", table: t),
                        senderUserID: try row.decodeIfPresent(at: 5, column: "sender_user_id", table: t))
    }

    private mutating func apply(_ record: MessageRecord) throws {
        guard let payload = try? MessagePayload(json: record.payload), !payload.isControl, record.createdAt <= UInt64(Int64.max) else {
            report.invalid += 1
            return
        }
        let messageID = record.messageID.text, channelID = record.channelID.text, senderID = record.senderID.text
        let payloadID = payload.id.text
        // An edit's time is the edit payload's own `ts` (the record says only that it was edited).
        let editedAt: Int64? = record.edited ? payload.timestamp * 1000 : nil
        let erased = try store.hasTombstone(channelID: channelID, senderUserID: senderID, payloadID: payloadID, db)
        let sealed = erased ? nil : try store.sealer.seal(record.payload, table: TimelineStore.table, column: "plaintext", rowID: messageID)
        let state = erased ? "deleted" : "decrypted"
        let payloadKey = StoreSchema.payloadKey(senderUserID: senderID, payloadID: payloadID)
        guard let row = try existing(messageID) else {
            let inserted = try unlessPayloadUsed {
                try db.run(Self.insertSQL, [messageID, channelID, senderID, record.senderDeviceID.text, Int64(record.createdAt),
                                            Data(Self.contentHash(messageID: messageID)), state, sealed, editedAt, payloadID, payloadKey,
                                            transferID, source])
            }
            if !inserted {
                report.conflicts += 1
            } else if erased {
                report.tombstoned += 1
            } else {
                report.inserted += 1
            }
            return
        }
        guard row.channelID == channelID, row.kind == "message", row.senderUserID == nil || row.senderUserID == senderID else {
            report.conflicts += 1
            return
        }
        let fillable = row.state == "pending_key" || (row.state == "undecryptable" && row.reason.map(Self.wantOfKeyReasons.contains) == true)
        let reimport = row.state == "decrypted" && row.transferID != nil
        switch row.state {
        case _ where fillable || reimport:
            break
        case "deleted":
            report.keptDeleted += 1
            return
        case "decrypted", "unencrypted":
            report.keptOwn += 1
            return
        default:
            report.keptRefused += 1
            return
        }
        // A re-import first drops the label, so that the trigger `history_replaced` (which keeps
        // a text this device's own decryption replaces) sees a labelling, not a decryption.
        if reimport { try db.run("UPDATE timeline SET history_transfer_id = NULL WHERE message_id = ?", [messageID]) }
        let filled = try unlessPayloadUsed {
            try db.run(Self.fillSQL, [state, sealed, editedAt, payloadID, payloadKey, senderID, record.senderDeviceID.text, transferID, source, messageID])
        }
        guard filled else {
            report.conflicts += 1
            return
        }
        if erased {
            try store.pendingStore.removePending(messageID: messageID, db)
            report.tombstoned += 1
        } else if reimport {
            report.updated += 1
        } else {
            report.filled += 1
        }
    }

    /// Runs `write`; `false` when a used (sender user, payload id) — another message of this
    /// device carries it — refused the row (only that statement is undone).
    private func unlessPayloadUsed(_ write: () throws -> Void) throws -> Bool {
        do {
            try write()
            return true
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            return false
        }
    }

    private mutating func applyDeleted(channelID: String, messageID: String) throws {
        guard let row = try existing(messageID), row.channelID == channelID, row.transferID == transferID, row.state == "decrypted" else {
            report.deletesIgnored += 1
            return
        }
        try store.erase(messageID: messageID, db)
        report.erased += 1
    }

    /// The content hash of a transferred row: no envelope was received, so a value no envelope
    /// can have (SHA-256 of a label and the server id), unique per row.
    static func contentHash(messageID: String) -> [UInt8] {
        SHA256.hash(Array("e2ee-transferred-history-v1".utf8) + Array(messageID.utf8))
    }
}
