import CSodium
import E2EECrypto
import Foundation
import GRDB

/// The insert of the floor that stores the rows (issue 47, decision 1): the floor's rows and
/// sealed bytes into the store's timeline schema — every column of `timeline` with its checks,
/// and the indexes pages, dedupe and the pending re-drive need: the primary key on the server
/// id, `timeline_page`, the envelope-hash index by channel, the unique payload key and the
/// tombstone index (schema `v25`), beside an empty `pending_ciphertexts` with its two indexes (the workload
/// leaves nothing pending, so the floor writes none) — in the store's settings (WAL,
/// `synchronous = NORMAL`, an 8 MiB page cache, checkpoints every 10,000 pages), 10,000 rows a
/// transaction: what the best receiver with this schema could do.
///
/// The keys the indexes need are computed in a phase of their own (``keys(_:sealed:cores:)``,
/// over every core): a row's content hash (SHA-256 of its ciphertext, as the receiver hashes the
/// envelope it dedupes on) and its payload key (as `v25` lays it out: 4 bytes of the SHA-256 of
/// the sender, 12 of the SHA-256 of the sender and the payload id; here the row's device and id).
///
/// Beside it, when `INGEST_INDEXED_REFERENCE=1`, the same insert at 150 rows a transaction (the
/// ingest's mean catch-up transaction before decision 2), on random bytes of the same lengths,
/// after the sample's measurement: its memory would otherwise count in the sample's peak growth.
enum IndexedInsertReference {
    /// Whether the environment asks for the small-transaction reference (`INGEST_INDEXED_REFERENCE=1`).
    static var isWanted: Bool { ProcessInfo.processInfo.environment["INGEST_INDEXED_REFERENCE"] == "1" }

    /// The floor's transaction size.
    static let largeTransaction = 10_000
    /// About the mean of the ingest's catch-up transactions (one core, measured with the shared
    /// committer before decision 2: ~150 rows).
    static let smallTransaction = 150

    /// The index keys of one row.
    struct Keys: Sendable {
        let content: Data
        let payload: Data?
    }

    /// Every row's keys, the rows split over `cores` threads.
    static func keys(_ rows: [FloorRows.Row], sealed: [Data], cores: Int) -> [Keys] {
        let cores = max(1, cores)
        let slices = KeySlices(count: cores)
        DispatchQueue.concurrentPerform(iterations: cores) { slice in
            let range = (rows.count * slice / cores)..<(rows.count * (slice + 1) / cores)
            slices.set(slice, range.map { index in
                let row = rows[index]
                // v25's layout: 4 bytes naming the sender, 12 of the pair's digest.
                let payload = row.kind == .distribution ? nil
                    : Data(SHA256.hash(Array(row.senderDeviceID.utf8)).prefix(4) + SHA256.hash(Array((row.senderDeviceID + "/" + row.messageID).utf8)).prefix(12))
                return Keys(content: Data(SHA256.hash(row.ciphertext)), payload: payload)
            })
        }
        return slices.joined()
    }

    /// The small-transaction reference on random bytes of the rows' sealed lengths; its wall time.
    /// - Throws: GRDB's errors.
    static func runSmall(_ rows: [FloorRows.Row]) throws -> Duration {
        let sealed = rows.map { row in
            var bytes = Data(count: 12 + row.keptLength + FloorRows.tagLength)  // nonce, what is kept, tag
            bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
            return bytes
        }
        return try insert(rows, sealed: sealed, keys: keys(rows, sealed: sealed, cores: 1), perTransaction: smallTransaction)
    }

    /// The store's timeline schema (`v25`) with the indexes the insert keeps.
    static let schema = """
        CREATE TABLE timeline (
            message_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, sender_user_id TEXT, sender_device_id TEXT,
            created_at INTEGER NOT NULL, content_hash BLOB NOT NULL CHECK (length(content_hash) = 32),
            state TEXT NOT NULL CHECK (state IN ('pending_key', 'decrypted', 'undecryptable', 'unencrypted', 'deleted')),
            failure_reason TEXT, plaintext BLOB, is_own INTEGER NOT NULL DEFAULT 0 CHECK (is_own IN (0, 1)),
            kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'control', 'duplicate')),
            edited_at INTEGER, duplicate_of TEXT, payload_id TEXT, removed_from_server_at INTEGER, delete_of TEXT,
            payload_key BLOB CHECK (payload_key IS NULL OR length(payload_key) = 16),
            CHECK ((state = 'undecryptable') = (failure_reason IS NOT NULL)),
            CHECK (state IN ('decrypted', 'unencrypted') OR plaintext IS NULL));
        CREATE INDEX timeline_page ON timeline(channel_id, created_at, message_id);
        CREATE INDEX timeline_by_channel_content ON timeline(substr(channel_id, 1, 8), substr(content_hash, 1, 8));
        CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL;
        CREATE INDEX timeline_tombstones ON timeline(channel_id, sender_user_id, delete_of) WHERE delete_of IS NOT NULL;
        CREATE TABLE pending_ciphertexts (
            message_id TEXT PRIMARY KEY REFERENCES timeline(message_id) ON DELETE CASCADE, channel_id TEXT NOT NULL,
            sender_device_id TEXT, content TEXT NOT NULL, waiting_for TEXT NOT NULL, received_at INTEGER NOT NULL, content_bytes INTEGER);
        CREATE INDEX pending_by_sender ON pending_ciphertexts(channel_id, sender_device_id, received_at);
        CREATE INDEX pending_by_wait ON pending_ciphertexts(waiting_for, content_bytes);
        """

    /// Inserts `rows` into a fresh file with ``schema``, `perTransaction` rows a transaction;
    /// the wall time of the inserts (the schema made before the clock starts).
    /// - Throws: GRDB's errors.
    static func insert(_ rows: [FloorRows.Row], sealed: [Data], keys: [Keys], perTransaction: Int) throws -> Duration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-indexed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 10000")
        }
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("indexed.sqlite").path, configuration: configuration)
        try queue.write { db in try db.execute(sql: schema) }
        let clock = ContinuousClock()
        let start = clock.now
        for first in stride(from: 0, to: rows.count, by: perTransaction) {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: """
                    INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state, plaintext,
                                          kind, payload_id, payload_key)
                    VALUES (?, ?, ?, ?, ?, ?, 'decrypted', ?, ?, ?, ?)
                    """)
                for index in first..<min(first + perTransaction, rows.count) {
                    let row = rows[index]
                    let control = row.kind == .distribution
                    statement.setUncheckedArguments([row.messageID, row.channelID, row.senderDeviceID, row.senderDeviceID, row.createdAt,
                                                     keys[index].content, sealed[index], control ? "control" : "message",
                                                     control ? nil : row.messageID, keys[index].payload])
                    try statement.execute()
                }
            }
        }
        let elapsed = clock.now - start
        try queue.close()
        return elapsed
    }
}

/// Each thread's keys, joined in slice order once all are done.
private final class KeySlices: @unchecked Sendable {
    private let lock = NSLock()
    private var slices: [[IndexedInsertReference.Keys]]

    init(count: Int) { slices = Array(repeating: [], count: count) }

    func set(_ slice: Int, _ value: [IndexedInsertReference.Keys]) {
        lock.withLock { slices[slice] = value }
    }

    func joined() -> [IndexedInsertReference.Keys] {
        lock.withLock { slices.flatMap { $0 } }
    }
}
