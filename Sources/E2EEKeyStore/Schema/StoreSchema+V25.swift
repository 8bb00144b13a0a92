import E2EECrypto
import Foundation
import GRDB

extension StoreSchema {
    /// `v25`: the two dedupe indexes on random keys clustered, so that a received row's index
    /// writes land where its channel's or its sender's recent rows are, not anywhere in the
    /// store (issue 47).
    ///
    /// On a store a year of use has filled (1,000,000 rows), `timeline_by_content_prefix` and
    /// `timeline_payload_key` spread each insert over their whole width (~45 MB of leaves):
    /// nearly every received row dirtied a leaf of each that no other row of its transaction
    /// touched, and the page cache held few of them, so the same 100,000 deliveries cost
    /// about twice the SQLite work of an empty store (Benchmarks/README.md, "Issue 47").
    ///
    /// - `timeline_by_channel_content` replaces `timeline_by_content_prefix`: the first 8
    ///   characters of the channel id, then the envelope hash's first 8 bytes
    ///   (``channelPrefixExpression``, ``contentPrefixExpression``). A catch-up of a channel
    ///   writes into that channel's slice of the index; the dedupe lookup seeks both.
    /// - `timeline.payload_key` gets a new layout (``payloadKey(senderUserID:payloadID:)``): 4
    ///   bytes naming the sender user, then 12 bytes of the pair's digest, so one sender's rows
    ///   meet in one slice of `timeline_payload_key`. Every row's key is recomputed (``migrationPageSize`` rows
    ///   at a time, in rowid order, inside the migrator's transaction), the unique index made again.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` for a pair that is not text,
    ///   GRDB's `DatabaseError`.
    static func clusterDedupeIndexes(_ db: Database) throws {
        try db.execute(sql: """
            DROP INDEX timeline_by_content_prefix;
            CREATE INDEX timeline_by_channel_content ON timeline(substr(channel_id, 1, 8), substr(content_hash, 1, 8));
            DROP INDEX timeline_payload_key;
            """)
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
                try update.execute(arguments: [payloadKey(senderUserID: user, payloadID: payloadID), rowID])
                after = rowID
            }
            if rows.count < migrationPageSize { break }
        }
        try db.execute(sql: "CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL")
    }

    /// Characters of the channel id `timeline_by_channel_content` starts with (a channel id is
    /// a UUID: 8 hex digits tell channels apart but for a rare shared slice, which the lookup's
    /// check of the whole id settles).
    static let channelPrefixLength = 8

    /// The first indexed expression of `timeline_by_channel_content`, spelled as the index
    /// spells it (a query must match it for SQLite to use the index).
    static let channelPrefixExpression = "substr(channel_id, 1, \(channelPrefixLength))"

    /// Bytes of the sender-user part of ``payloadKey(senderUserID:payloadID:)``.
    static let payloadSenderPartLength = 4

    /// The key of a (sender user, payload id) pair since `v25`: 4 bytes of SHA-256 over a label
    /// and the sender user id, then the first 12 bytes of
    /// ``payloadPairDigest(senderUserID:payloadID:)``; `nil` when either is missing (such a row
    /// takes no part in the rule). Two different pairs share a key only if 96 bits of SHA-256
    /// collide (the same user) or 128 bits do (two users).
    static func payloadKey(senderUserID: String?, payloadID: String?) -> Data? {
        guard let senderUserID, let payloadID else { return nil }
        var key = Data(capacity: payloadKeyLength)
        key += SHA256.hash(payloadSenderLabel + Array(senderUserID.utf8)).prefix(payloadSenderPartLength)
        key += payloadPairDigest(senderUserID: senderUserID, payloadID: payloadID).prefix(payloadKeyLength - payloadSenderPartLength)
        return key
    }

    /// The label of the sender-user part of ``payloadKey(senderUserID:payloadID:)``.
    private static let payloadSenderLabel = Array("e2ee payload key sender v25".utf8)
}
