import E2EECrypto
import Foundation
import GRDB

/// The receive pipeline's reads (schema `v4`): dedupe lookups, the keys a decryption needs,
/// pending rows to re-drive, and the app's timeline pages without control rows.
extension KeyStore {
    static let receivedColumns = TimelineStore.columns + ", kind, edited_at, duplicate_of, payload_id"

    /// The stored rows among `ids` (plaintexts not opened), by id: the persisted dedupe set.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    package func receivedMessages(ids: [String]) async throws -> [String: ReceivedMessage] {
        guard !ids.isEmpty else { return [:] }
        return try await read { [self] db in try receivedMessages(ids: ids, db) }
    }

    func receivedMessages(ids: [String], _ db: Database) throws -> [String: ReceivedMessage] {
        var found: [String: ReceivedMessage] = [:]
        try Self.forEachLookupRow(Self.receivedLookupSQLs, ids, db) { row in
            let message = try decodeReceived(row, openPlaintext: false)
            found[message.message.messageID] = message
        }
        return found
    }

    /// The content hash of each stored row among `ids`, by id: the dedupe set as a batch's plan
    /// reads it (whether an id is known, and whether a copy carries the stored bytes). Two
    /// columns, where ``receivedMessages(ids:)`` reads whole rows with their sealed plaintexts.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    func storedContentHashes(ids: [String], _ db: Database) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        try Self.forEachLookupRow(Self.storedHashLookupSQLs, ids, db) { row in
            let id: String = try row.decode("message_id", table: TimelineStore.table)
            let hash: Data = try row.decode("content_hash", table: TimelineStore.table)
            found[id] = [UInt8](hash)
        }
        return found
    }

    /// Values per lookup statement: a lookup runs cached statements with one of these many
    /// placeholders, each chunk padded with NULLs (which match nothing) to the smallest that
    /// holds it, instead of preparing a statement for each list length. The narrow ones are for
    /// a socket frame's single message (binding and skipping 49 NULLs cost it more than the
    /// seek itself).
    static let lookupWidths = [1, 8, 50]
    /// The widest lookup statement's placeholders.
    static var lookupWidth: Int { lookupWidths[lookupWidths.count - 1] }

    /// `values` in chunks of ``lookupWidth``, each padded with NULLs to the smallest of
    /// ``lookupWidths`` that holds it; `width` is that width's position in ``lookupWidths``.
    static func lookupChunks(_ values: [some DatabaseValueConvertible]) -> [(width: Int, values: [(any DatabaseValueConvertible)?])] {
        stride(from: 0, to: values.count, by: lookupWidth).map { start in
            var chunk: [(any DatabaseValueConvertible)?] = values[start..<min(start + lookupWidth, values.count)].map { $0 }
            let width = lookupWidths.firstIndex { $0 >= chunk.count } ?? lookupWidths.count - 1
            chunk += Array(repeating: nil, count: lookupWidths[width] - chunk.count)
            return (width, chunk)
        }
    }

    /// Runs the lookup `sqls` (one statement per width of ``lookupWidths``, in that order) for
    /// `values`, a chunk at a time (``lookupChunks(_:)``), with `trailing` arguments after each
    /// chunk's, and hands every row to `body` (a cursor's row: read it before returning).
    /// - Throws: what `body` throws, GRDB's `DatabaseError`.
    static func forEachLookupRow(_ sqls: [String], _ values: [some DatabaseValueConvertible], then trailing: [(any DatabaseValueConvertible)?] = [],
                                 _ db: Database, _ body: (Row) throws -> Void) throws {
        for chunk in lookupChunks(values) {
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sqls[chunk.width]), arguments: StatementArguments(chunk.values + trailing))
            while let row = try rows.next() { try body(row) }
        }
    }

    /// `width` placeholders, comma-separated.
    private static func marks(_ width: Int) -> String { Array(repeating: "?", count: width).joined(separator: ",") }

    /// The dedupe lookup by server id, one per width of ``lookupWidths``, in that order (built
    /// once: a lookup only picks one).
    static let receivedLookupSQLs = lookupWidths.map { "SELECT \(receivedColumns) FROM timeline WHERE message_id IN (\(marks($0)))" }

    /// ``storedContentHashes(ids:_:)``'s lookup by server id, one per width of
    /// ``lookupWidths``, in that order.
    static let storedHashLookupSQLs = lookupWidths.map { "SELECT message_id, content_hash FROM timeline WHERE message_id IN (\(marks($0)))" }

    /// For each of `contentHashes` already stored in `channelID` (not as a duplicate, and not
    /// refused: a refusal may come from forged metadata around genuine bytes), the first
    /// message id by `(created_at, id)`: the same envelope bytes under another id (§6).
    /// - Throws: GRDB's `DatabaseError`.
    package func firstMessageIDs(channelID: String, contentHashes: [ContentDigest]) async throws -> [ContentDigest: String] {
        guard !contentHashes.isEmpty else { return [:] }
        return try await read { [self] db in try firstMessageIDs(channelID: channelID, contentHashes: contentHashes, db) }
    }

    /// The envelope-hash lookup: ``lookupWidth`` hash prefixes, then the channel twice. It seeks
    /// `timeline_by_channel_content` (schema `v25`) by the channel id's first characters and
    /// each prefix; `+channel_id` keeps SQLite from choosing the page index instead (it cannot
    /// tell how selective a prefix is) and drops another channel sharing the slice, and only
    /// rows whose whole hash was asked for count. No ORDER BY (with one, SQLite walks the channel's page index): the
    /// first copy is picked in Swift.
    static let contentLookupSQL = contentLookupSQL(width: lookupWidth)

    /// ``contentLookupSQL`` per width of ``lookupWidths``, in that order.
    static let contentLookupSQLs = lookupWidths.map(contentLookupSQL(width:))

    /// ``contentLookupSQL`` with `width` placeholders for prefixes.
    static func contentLookupSQL(width: Int) -> String {
        """
        SELECT content_hash, message_id, created_at FROM timeline
        WHERE \(StoreSchema.contentPrefixExpression) IN (\(marks(width)))
          AND \(StoreSchema.channelPrefixExpression) = substr(?, 1, \(StoreSchema.channelPrefixLength))
          AND +channel_id = ? AND kind != 'duplicate' AND state != 'undecryptable'
        """
    }

    func firstMessageIDs(channelID: String, contentHashes: [ContentDigest], _ db: Database) throws -> [ContentDigest: String] {
        let asked = Set(contentHashes)
        var found: [ContentDigest: (createdAt: Int64, id: String)] = [:]
        let prefixes = Array(Set(contentHashes.map { $0.prefix(StoreSchema.contentPrefixLength) }))
        try Self.forEachLookupRow(Self.contentLookupSQLs, prefixes, then: [channelID, channelID], db) { row in
            let hash: Data = try row.decode("content_hash", table: TimelineStore.table)
            let key = ContentDigest(hash)
            guard asked.contains(key) else { return }
            let id: String = try row.decode("message_id", table: TimelineStore.table)
            let createdAt: Int64 = try row.decode("created_at", table: TimelineStore.table)
            if let first = found[key], (first.createdAt, first.id) <= (createdAt, id) { return }
            found[key] = (createdAt, id)
        }
        return found.mapValues(\.id)
    }

    /// Up to `limit` `message` rows of a channel strictly before `cursor` (the newest when nil),
    /// oldest → newest, plaintexts opened: the app's timeline (control and duplicate rows are
    /// left out).
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func receivedTimelinePage(channelID: String, before cursor: TimelineCursor? = nil, limit: Int = 50) async throws -> [ReceivedMessage] {
        guard limit > 0 else { return [] }
        return try await read { [self] db in
            let rows: [Row]
            if let cursor {
                rows = try db.rows(
                    """
                    SELECT \(Self.receivedColumns) FROM timeline WHERE channel_id = ? AND kind = 'message' AND (created_at, message_id) < (?, ?)
                    ORDER BY created_at DESC, message_id DESC LIMIT ?
                    """, [channelID, cursor.createdAt.microseconds, cursor.messageID, limit])
            } else {
                rows = try db.rows(
                    "SELECT \(Self.receivedColumns) FROM timeline WHERE channel_id = ? AND kind = 'message' ORDER BY created_at DESC, message_id DESC LIMIT ?",
                    [channelID, limit])
            }
            return try rows.reversed().map { try decodeReceived($0, openPlaintext: true) }
        }
    }

    /// One row by server id with its receive-side columns, plaintext opened.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func receivedMessage(id: String) async throws -> ReceivedMessage? {
        try await read { [self] db in
            try db.row("SELECT \(Self.receivedColumns) FROM timeline WHERE message_id = ?", [id]).map { try decodeReceived($0, openPlaintext: true) }
        }
    }

    /// The queued ciphertexts waiting for any of `waitingFor` (all when nil), in timeline order
    /// `(created_at, id)`, with what their rows know: those after `cursor` when given, at most
    /// `limit` when given (a re-drive of everything pages, so memory stays bounded). Without
    /// `waitingFor` only rows still pending are listed: a parked ciphertext (sent after this
    /// device left its channel) is found only by the key it waits for.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    package func pendingReceives(waitingFor: [String]? = nil, after cursor: TimelineCursor? = nil, limit: Int? = nil) async throws -> [PendingReceive] {
        if let waitingFor, waitingFor.isEmpty { return [] }
        return try await read { db in
            let sql = Self.pendingReceivesSQL(waitingFor: waitingFor?.count, after: cursor != nil, limited: limit != nil)
            var values: [(any DatabaseValueConvertible)?] = waitingFor ?? []
            if let cursor {
                values.append(contentsOf: [cursor.createdAt.microseconds, cursor.messageID] as [(any DatabaseValueConvertible)?])
            }
            if let limit { values.append(max(0, limit)) }
            let arguments = StatementArguments(values)
            let t = PendingCiphertextStore.table
            // Cached: a lane asks this after every key distribution (the SQL varies only with
            // how many keys are asked for, a handful of shapes).
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                let edited: Int64? = try row.decodeIfPresent("edited_at", table: t)
                let pending = PendingCiphertext(
                    messageID: try row.decode("message_id", table: t), channelID: try row.decode("channel_id", table: t),
                    senderDeviceID: try row.decodeIfPresent("sender_device_id", table: t), content: try row.decode("content", table: t),
                    waitingFor: try row.decode("waiting_for", table: t), receivedAt: StoreTime(microseconds: try row.decode("received_at", table: t)))
                return PendingReceive(
                    pending: pending, senderUserID: try row.decodeIfPresent("sender_user_id", table: t),
                    createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)), editedAt: edited.map { StoreTime(microseconds: $0) },
                    kind: try row.decodeEnum("kind", table: t))
            }
        }
    }

    /// The query of ``pendingReceives(waitingFor:after:limit:)``: `waitingFor` keys (all
    /// pending rows when nil), then the cursor's two values and the limit when asked for. The
    /// queue is walked and each row's timeline row looked up by its key — `CROSS JOIN` keeps
    /// that order: without statistics SQLite would rather scan the whole timeline for
    /// `pending_key` rows, and a re-drive reads the queue a page at a time.
    static func pendingReceivesSQL(waitingFor keys: Int?, after: Bool, limited: Bool) -> String {
        var sql = """
            SELECT p.message_id, p.channel_id, p.sender_device_id, p.content, p.waiting_for, p.received_at,
                   t.sender_user_id, t.created_at, t.edited_at, t.kind
            FROM pending_ciphertexts p CROSS JOIN timeline t ON t.message_id = p.message_id WHERE 1
            """
        if let keys {
            sql += " AND p.waiting_for IN (\(Array(repeating: "?", count: keys).joined(separator: ",")))"
        } else {
            // Every pending row but those only an acceptance can release: a message waiting for
            // a request to be accepted (docs/spec/protocol.md §5.9) stays unread while the
            // channel is still a request or declined, so re-reading, re-parsing and re-writing
            // it on every catch-up would change nothing. Acceptance re-drives them.
            // Likewise a message from an unlinked device of a user with a key (§10.8) waits
            // until that device is linked, or the user has no key any more.
            sql += """
                 AND t.state = 'pending_key'
                 AND NOT (p.waiting_for = 'request:' || p.channel_id
                          AND EXISTS (SELECT 1 FROM channel_pins c WHERE c.channel_id = p.channel_id AND c.standing IN ('request', 'declined')))
                 AND NOT (p.waiting_for LIKE 'unlinked:%'
                          AND NOT EXISTS (SELECT 1 FROM device_links l WHERE l.linked = 1 AND p.waiting_for = 'unlinked:' || l.user_id || '/' || l.device_id)
                          AND NOT EXISTS (SELECT 1 FROM contact_key_standings s WHERE s.state = 'none' AND p.waiting_for LIKE 'unlinked:' || s.user_id || '/%'))
                """
        }
        if after { sql += " AND (t.created_at, t.message_id) > (?, ?)" }
        sql += " ORDER BY t.created_at, t.message_id"
        if limited { sql += " LIMIT ?" }
        return sql
    }

    /// Every pin of `deviceID`, under whichever user (normally one; another user's pin of the
    /// same device id is a sender mismatch for the receiver).
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    package func remoteIdentities(deviceID: String) async throws -> [RemoteIdentity] {
        try await read { [self] db in try remoteIdentities(deviceID: deviceID, db) }
    }

    func remoteIdentities(deviceID: String, _ db: Database) throws -> [RemoteIdentity] {
        let users = try String.fetchAll(db.cachedStatement(sql: "SELECT user_id FROM remote_identities WHERE device_id = ? ORDER BY user_id"),
                                        arguments: [deviceID])
        return try users.compactMap { try remoteIdentityStore.loadIdentity(userID: $0, deviceID: deviceID, db) }
    }

    /// The device's current session row (one serialised ratchet state).
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func currentSession(userID: String, deviceID: String) async throws -> StoredSession? {
        try await read { [self] db in try sessionStore.loadCurrentSession(userID: userID, deviceID: deviceID, db) }
    }

    /// The device's session rows: the current one first, then archived ones most recently used
    /// first, at most `limit`.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func sessions(userID: String, deviceID: String, limit: Int) async throws -> [StoredSession] {
        try await read { [self] db in Array(try sessionStore.loadSessions(userID: userID, deviceID: deviceID, db).prefix(limit)) }
    }

    /// The receiving sender-key state at `address`.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func receiverSenderKey(_ address: SenderKeyAddress) async throws -> ReceiverSenderKey? {
        try await read { [self] db in try receiverSenderKeyStore.loadReceiverSenderKey(address, db) }
    }

    /// The signed and one-time prekeys a prekey message names, and whether its `EK_A` was
    /// accepted before.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func prekeyLookup(signedPrekeyID: UInt32, oneTimePrekeyID: UInt32, ephemeralKey: [UInt8]) async throws -> PrekeyLookup {
        try await read { [self] db in
            PrekeyLookup(
                signedPrekey: try signedPrekeyStore.loadSignedPrekey(id: signedPrekeyID, db),
                oneTimePrekey: oneTimePrekeyID == 0 ? nil : try oneTimePrekeyStore.loadOneTimePrekey(id: oneTimePrekeyID, db),
                ephemeralKeyAccepted: try signedPrekeyStore.isEphemeralKeyAccepted(ephemeralKey, db))
        }
    }

    /// The refused edits and deletes recorded for `messageID`, oldest first.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    package func refusedInputs(messageID: String) async throws -> [RefusedInput] {
        try await read { db in
            let t = "refused_inputs"
            return try db.rows("SELECT * FROM refused_inputs WHERE message_id = ? ORDER BY id", [messageID]).map { row in
                let hash: Data? = try row.decodeIfPresent("content_hash", table: t)
                return RefusedInput(
                    channelID: try row.decode("channel_id", table: t), messageID: try row.decode("message_id", table: t),
                    kind: try row.decodeEnum("input_kind", table: t), reason: try row.decode("reason", table: t),
                    contentHash: hash.map { [UInt8]($0) }, seenAt: StoreTime(microseconds: try row.decode("seen_at", table: t)))
            }
        }
    }

    /// Decodes a row selected with ``receivedColumns``.
    private func decodeReceived(_ row: Row, openPlaintext: Bool) throws -> ReceivedMessage {
        let t = TimelineStore.table
        let id: String = try row.decode(at: 0, column: "message_id", table: t)
        let stateText: String = try row.decode(at: 6, column: "state", table: t)
        let reason: String? = try row.decodeIfPresent(at: 7, column: "failure_reason", table: t)
        guard let state = TimelineState.from(column: stateText, reason: reason) else { throw KeyStoreError.corruptColumn(table: t, column: "state") }
        let hash: Data = try row.decode(at: 5, column: "content_hash", table: t)
        let isOwn: Int64 = try row.decode(at: 9, column: "is_own", table: t)
        let sealed: Data? = openPlaintext ? try row.decodeIfPresent(at: 8, column: "plaintext", table: t) : nil
        let kindText: String = try row.decode(at: 10, column: "kind", table: t)
        guard let kind = TimelineRowKind(rawValue: kindText) else { throw KeyStoreError.corruptColumn(table: t, column: "kind") }
        let edited: Int64? = try row.decodeIfPresent(at: 11, column: "edited_at", table: t)
        let message = TimelineMessage(
            messageID: id, channelID: try row.decode(at: 1, column: "channel_id", table: t),
            senderUserID: try row.decodeIfPresent(at: 2, column: "sender_user_id", table: t),
            senderDeviceID: try row.decodeIfPresent(at: 3, column: "sender_device_id", table: t),
            createdAt: StoreTime(microseconds: try row.decode(at: 4, column: "created_at", table: t)), contentHash: [UInt8](hash), state: state,
            plaintext: try sealer.openIfPresent(sealed, table: t, column: "plaintext", rowID: id), isOwn: isOwn == 1)
        let facts = ReceivedFacts(
            kind: kind, payloadID: try row.decodeIfPresent(at: 13, column: "payload_id", table: t),
            editedAt: edited.map { StoreTime(microseconds: $0) }, duplicateOf: try row.decodeIfPresent(at: 12, column: "duplicate_of", table: t))
        return ReceivedMessage(message: message, facts: facts)
    }
}
