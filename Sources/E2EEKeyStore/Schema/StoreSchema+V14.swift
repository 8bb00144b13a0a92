import E2EECrypto
import Foundation
import GRDB

extension StoreSchema {
    /// `v14`: the (sender user, payload id) rule keyed by a 16-byte digest of the pair.
    ///
    /// `timeline_payload_id` held `(sender_user_id, payload_id)` — two UUID strings, about 80
    /// bytes an entry — so its leaves were the widest of the timeline's random-key indexes and
    /// every received row paid for comparing and writing them. `timeline.payload_key` holds
    /// a 16-byte digest of the pair and `timeline_payload_key` makes it unique where
    /// set (``payloadKeyV14(senderUserID:payloadID:)``; `v25` changed the key's layout): the
    /// same rule (two different pairs meet only if SHA-256 truncated to 128 bits
    /// collides), with entries a quarter of the size. Measured on the timeline schema outside
    /// Swift, in transactions of 150 rows: about 5 µs less of SQLite CPU per inserted row.
    ///
    /// Every write that sets `payload_id` sets `payload_key` from the same pair, and a query by
    /// the pair seeks the key and checks both columns. The migration computes the key of every
    /// row that has both, ``migrationPageSize`` rows at a time in rowid order (a large store is
    /// never read into memory at once), inside the migrator's transaction: a failure leaves the
    /// file at `v13`.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` for a pair that is not text,
    ///   GRDB's `DatabaseError`.
    static func keyPayloadUses(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE timeline ADD COLUMN payload_key BLOB CHECK (payload_key IS NULL OR length(payload_key) = 16)")
        let page = try db.makeStatement(sql: """
            SELECT rowid, sender_user_id, payload_id FROM timeline
            WHERE rowid > ? AND sender_user_id IS NOT NULL AND payload_id IS NOT NULL ORDER BY rowid LIMIT ?
            """)
        let update = try db.makeStatement(sql: "UPDATE timeline SET payload_key = ? WHERE rowid = ?")
        var after: Int64 = .min
        while true {
            let rows = try Row.fetchAll(page, arguments: [after, migrationPageSize])
            for row in rows {
                let rowID: Int64 = try row.decode("rowid", table: "timeline")
                let user: String = try row.decode("sender_user_id", table: "timeline")
                let payloadID: String = try row.decode("payload_id", table: "timeline")
                try update.execute(arguments: [payloadKeyV14(senderUserID: user, payloadID: payloadID), rowID])
                after = rowID
            }
            if rows.count < migrationPageSize { break }
        }
        try db.execute(sql: """
            DROP INDEX timeline_payload_id;
            CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL;
            """)
    }

    /// Rows the `v14` migration reads at a time.
    static let migrationPageSize = 1_000

    /// Bytes of ``payloadKey(senderUserID:payloadID:)``.
    static let payloadKeyLength = 16

    /// The `v14` key of a (sender user, payload id) pair: the first 16 bytes of
    /// ``payloadPairDigest(senderUserID:payloadID:)``; `nil` when either is missing (such a row
    /// takes no part in the rule, as before). Since `v25` the key is
    /// ``payloadKey(senderUserID:payloadID:)`` (this migration keeps its own function: a shipped
    /// migration never changes).
    static func payloadKeyV14(senderUserID: String?, payloadID: String?) -> Data? {
        guard let senderUserID, let payloadID else { return nil }
        return Data(payloadPairDigest(senderUserID: senderUserID, payloadID: payloadID).prefix(payloadKeyLength))
    }

    /// SHA-256 over a label, the sender user id's length (8 bytes, big-endian), the sender user
    /// id and the payload id (UTF-8), so that no two pairs share an input.
    static func payloadPairDigest(senderUserID: String, payloadID: String) -> [UInt8] {
        // One buffer, sized once: this runs for every received row.
        var input: [UInt8] = []
        input.reserveCapacity(payloadKeyLabel.count + 8 + senderUserID.utf8.count + payloadID.utf8.count)
        input += payloadKeyLabel
        withUnsafeBytes(of: UInt64(senderUserID.utf8.count).bigEndian) { input += $0 }
        input += senderUserID.utf8
        input += payloadID.utf8
        return Array(SHA256.hash(input))
    }

    /// The label ``payloadPairDigest(senderUserID:payloadID:)`` hashes first.
    private static let payloadKeyLabel = Array("e2ee payload key v1".utf8)
}
