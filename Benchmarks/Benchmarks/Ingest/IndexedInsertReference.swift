import CSodium
import E2EECrypto
import Foundation
import GRDB

/// A reference beside the floor, not part of it: the floor's insert phase again, into a table
/// with the indexes the store's timeline keeps for dedupe and pages, at two transaction sizes.
/// It shows how much of the gap between the floor's insert (a primary key only, 10,000 rows a
/// transaction) and the ingest's commits is the SQLite work any receiver with those rules pays,
/// whatever its code: the primary key on the server id, `timeline_page`, the envelope-hash prefix
/// and the unique payload key (schema `v14`), in the store's settings (WAL, `synchronous =
/// NORMAL`, an 8 MiB page cache, checkpoints every 10,000 pages).
///
/// It runs after the sample's measurement, on bytes of its own (random, each row as long as the
/// floor's sealed bytes of that row), and its keys are made before its clock starts (the ingest
/// computes them during its plan, which this does not measure): the content hash is the SHA-256
/// of the row's bytes, the payload key 16 bytes of the SHA-256 of the row's id, the sender user
/// the row's sender device (a UUID string like a user id).
///
/// It runs only when `INGEST_INDEXED_REFERENCE=1`: its memory would otherwise count in the
/// sample's peak growth, which package-benchmark takes over the whole sample.
enum IndexedInsertReference {
    /// Whether the environment asks for the reference (`INGEST_INDEXED_REFERENCE=1`).
    static var isWanted: Bool { ProcessInfo.processInfo.environment["INGEST_INDEXED_REFERENCE"] == "1" }

    /// The two timed inserts.
    struct Timing {
        /// 10,000 rows a transaction, as the floor.
        var large: Duration
        /// ``smallTransaction`` rows a transaction: about the mean of the ingest's catch-up
        /// transactions (one core, measured with the shared committer: ~150 rows).
        var small: Duration
    }

    static let largeTransaction = 10_000
    static let smallTransaction = 150

    /// Inserts `rows` twice, into fresh files.
    /// - Throws: GRDB's errors.
    static func run(_ rows: [FloorRows.Row]) throws -> Timing {
        let sealed = rows.map { row in
            var bytes = Data(count: 12 + row.keptLength + FloorRows.tagLength)  // nonce, what is kept, tag
            bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
            return bytes
        }
        let keys = rows.indices.map { index in
            (content: Data(SHA256.hash([UInt8](sealed[index]))), payload: Data(SHA256.hash(Array(rows[index].messageID.utf8)).prefix(16)))
        }
        return Timing(large: try insert(rows, sealed: sealed, keys: keys, perTransaction: largeTransaction),
                      small: try insert(rows, sealed: sealed, keys: keys, perTransaction: smallTransaction))
    }

    private static func insert(_ rows: [FloorRows.Row], sealed: [Data], keys: [(content: Data, payload: Data)], perTransaction: Int) throws -> Duration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-indexed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 10000")
        }
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("indexed.sqlite").path, configuration: configuration)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE timeline (message_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, sender_user_id TEXT, sender_device_id TEXT,
                                       created_at INTEGER NOT NULL, content_hash BLOB NOT NULL, plaintext BLOB, payload_key BLOB);
                CREATE INDEX timeline_page ON timeline(channel_id, created_at, message_id);
                CREATE INDEX timeline_by_content_prefix ON timeline(substr(content_hash, 1, 8));
                CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL;
                """)
        }
        let clock = ContinuousClock()
        let start = clock.now
        for first in stride(from: 0, to: rows.count, by: perTransaction) {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: """
                    INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, plaintext, payload_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for index in first..<min(first + perTransaction, rows.count) {
                    let row = rows[index]
                    statement.setUncheckedArguments([row.messageID, row.channelID, row.senderDeviceID, row.senderDeviceID, row.createdAt,
                                                     keys[index].content, sealed[index], keys[index].payload])
                    try statement.execute()
                }
            }
        }
        let elapsed = clock.now - start
        try queue.close()
        return elapsed
    }
}
