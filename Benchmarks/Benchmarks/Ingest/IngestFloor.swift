import BenchmarkSupport
import CSodium
import Foundation
import GRDB

/// This machine's floor for the workload's rows (issue 20), measured in the same process and run
/// as the ingest: the work no receiving design can skip, done as directly as it can be done.
///
/// 0. **Parse** (issue 29: the ingest is fed the bytes the transport hands over, so the floor
///    reads the same bytes): every delivery's bytes — each `message.new` frame's text and each
///    REST page body, the 100,000 deliveries, repeats included, since a receiver has to read
///    a copy to know it is one — through `JSONSerialization.jsonObject`, one body after the
///    other on one thread, as one connection receives them. `JSONSerialization` is the
///    cheapest full parse Foundation has (every byte read, every value built, no schema and no
///    typed values), so the floor parses every byte without the product's typed decoding
///    (`JSONDecoder` of `ServerMessage`, base64 and timestamp checks), which stays the ingest's
///    to pay. (Until the eighth session of issue 47 the product's frame decoding also began with
///    it; `RealtimeEventDecoder` now reads a frame in one `JSONDecoder` pass.)
/// 1. **Crypto**, on every core (the rows split in equal slices, one thread each): per row the
///    libsodium calls of ``FloorRows/Kind`` on C buffers — Ed25519 verification for group
///    messages, the chain step (two HMACs), HKDF, AES-GCM open (twice for a DM: the payload key,
///    then the payload, with the key-commit HMAC) — then the store's sealing of what is kept
///    (AES-GCM under a store key with a fresh nonce and the row's id as associated data: the
///    plaintext, or an SKD's new sender-key state).
/// 2. **Insert**, on one connection: the same rows (id, channel, sender device, time, sealed
///    bytes) into a fresh SQLite file (WAL, `synchronous = NORMAL`, as the store) whose table has
///    only a primary key, 10,000 rows a transaction.
///
/// 3. **Keys**, on every core (issue 47): each row's content hash and payload key, which the
///    store's indexes hold (``IndexedInsertReference/keys(_:sealed:cores:)``).
/// 4. **Indexed insert** (issue 47, decision 1: *the floor stores the rows*): the same rows and
///    sealed bytes into the store's timeline schema with the indexes pages, dedupe and the
///    pending re-drive need, 10,000 rows a transaction (``IndexedInsertReference``).
///
/// The old floor (issue 20) is phases 0–2; the floor that stores the rows is phases 0, 1, 3 and
/// 4. Both are printed, with ingest ÷ each. A pipeline that overlaps its SQLite
/// writes with decryption can in principle beat it (a ratio above 1); the floor does no dedupe,
/// no ordering, no events and no state writes, which the ingest must do.
enum IngestFloor {
    /// The three phases' wall times.
    struct Timing {
        var parse: Duration
        var crypto: Duration
        var insert: Duration
        var keys: Duration
        var indexedInsert: Duration
        /// The bytes the indexed insert wrote to its files (WAL and database).
        var indexedInsertWritten = 0
        /// The old floor (issue 20): parse, crypto, a primary-key-only insert.
        var total: Duration { parse + crypto + insert }
        /// The floor that stores the rows (issue 47): parse, crypto, keys, the indexed insert.
        var stored: Duration { parse + crypto + keys + indexedInsert }
    }

    static let rowsPerTransaction = 10_000

    /// Runs the phases: `bytes` parsed on one thread, then `floor`'s rows on `cores` threads,
    /// into the primary-key-only table, their keys on `cores` threads, into the indexed table.
    /// - Throws: ``SetupFailed`` when a body does not parse to the messages it holds, or a
    ///   verification or an open fails (the inputs are made to pass), GRDB's errors.
    static func run(_ floor: FloorRows, bytes: [IngestInput.Bytes], messages: Int, cores: Int) throws -> Timing {
        let clock = ContinuousClock()
        let start = clock.now
        let parsed = parse(bytes)
        guard parsed == messages else { throw SetupFailed("the floor parsed \(parsed) messages of \(messages)") }
        let parseEnd = clock.now
        let sealed = try crypto(floor, cores: max(1, cores))
        let cryptoEnd = clock.now
        try insert(floor.rows, sealed: sealed)
        let insertEnd = clock.now
        let keys = IndexedInsertReference.keys(floor.rows, sealed: sealed, cores: max(1, cores))
        let keysEnd = clock.now
        let writtenBefore = ProcessCPU.bytesWritten()
        let indexed = try IndexedInsertReference.insert(floor.rows, sealed: sealed, keys: keys,
                                                        perTransaction: IndexedInsertReference.largeTransaction)
        return Timing(parse: parseEnd - start, crypto: cryptoEnd - parseEnd, insert: insertEnd - cryptoEnd, keys: keysEnd - insertEnd,
                      indexedInsert: indexed, indexedInsertWritten: ProcessCPU.bytesWritten() - writtenBefore)
    }

    /// Phase 0: every delivery's bytes through `JSONSerialization`, one after the other; the
    /// messages found (each frame's one, each page's list), so that nothing is parsed for
    /// nothing.
    private static func parse(_ bytes: [IngestInput.Bytes]) -> Int {
        var messages = 0
        for delivery in bytes {
            switch delivery {
            case .frame(let text):
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                if object?["message"] is [String: Any] { messages += 1 }
            case .pages(let bodies):
                for body in bodies {
                    let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                    messages += (object?["messages"] as? [Any])?.count ?? 0
                }
            }
        }
        return messages
    }

    /// Phase 1: every row's libsodium work, the rows split over `cores` threads; the sealed
    /// bytes per row.
    private static func crypto(_ floor: FloorRows, cores: Int) throws -> [Data] {
        let results = SliceResults(count: cores)
        let rows = floor.rows
        let storeKey = [UInt8](repeating: 0x5A, count: 32)
        DispatchQueue.concurrentPerform(iterations: cores) { slice in
            let range = (rows.count * slice / cores)..<(rows.count * (slice + 1) / cores)
            let scratch = Scratch()
            var sealed: [Data] = []
            sealed.reserveCapacity(range.count)
            var failed = false
            for index in range {
                guard let bytes = open(rows[index], signers: floor.signers, storeKey: storeKey, scratch: scratch) else {
                    failed = true
                    break
                }
                sealed.append(bytes)
            }
            results.set(slice, failed ? nil : sealed)
        }
        return try results.joined()
    }

    /// C buffers one thread reuses from row to row, wiped when it is done.
    private final class Scratch {
        static let plaintextCapacity = 1 << 16
        let messageKey = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        let nextChainKey = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        /// The derived key (32 bytes) and nonce (12 bytes).
        let derived = UnsafeMutablePointer<UInt8>.allocate(capacity: FloorRows.derivedLength)
        /// HKDF's PRK and last block.
        let hkdf = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        let mac = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        /// A DM's payload key (32 bytes) and the payload's all-zero nonce (12 bytes).
        let payloadKey = UnsafeMutablePointer<UInt8>.allocate(capacity: 44)
        let plaintext = UnsafeMutablePointer<UInt8>.allocate(capacity: plaintextCapacity)
        let salt = [UInt8](repeating: 0, count: 32)

        init() { payloadKey.initialize(repeating: 0, count: 44) }

        deinit {
            for (buffer, count) in [(messageKey, 32), (nextChainKey, 32), (derived, FloorRows.derivedLength), (hkdf, 64), (mac, 32),
                                    (payloadKey, 44), (plaintext, Self.plaintextCapacity)] {
                sodium_memzero(buffer, count)
                buffer.deallocate()
            }
        }
    }

    /// One row's libsodium work; its sealed bytes, or nil when a call refused.
    private static func open(_ row: FloorRows.Row, signers: [[UInt8]], storeKey: [UInt8], scratch: Scratch) -> Data? {
        if row.kind == .group {
            guard crypto_sign_verify_detached(row.signature, row.signed, UInt64(row.signed.count), signers[row.signer]) == 0 else { return nil }
        }
        SodiumFloor.mac(key: row.chainKey, byte: 0x01, into: scratch.messageKey)
        SodiumFloor.mac(key: row.chainKey, byte: 0x02, into: scratch.nextChainKey)
        SodiumFloor.hkdf(salt: scratch.salt, saltLength: 32, ikm: scratch.messageKey, ikmLength: 32, info: FloorRows.info,
                         infoLength: FloorRows.info.count, into: scratch.derived, outputLength: FloorRows.derivedLength, scratch: scratch.hkdf)
        guard row.ciphertext.count - FloorRows.tagLength <= Scratch.plaintextCapacity,
              crypto_aead_aes256gcm_decrypt(scratch.plaintext, nil, nil, row.ciphertext, UInt64(row.ciphertext.count), row.associatedData,
                                            UInt64(row.associatedData.count), scratch.derived + 32, scratch.derived) == 0 else { return nil }
        switch row.kind {
        case .group, .distribution:
            break
        case .direct:
            // The key commitment (an HMAC under the payload key), then the payload.
            scratch.payloadKey.update(from: scratch.plaintext, count: 32)
            SodiumFloor.mac(key: scratch.payloadKey, keyLength: 32, message: row.associatedData, messageLength: row.associatedData.count,
                            into: scratch.mac)
            guard row.payload.count - FloorRows.tagLength <= Scratch.plaintextCapacity,
                  crypto_aead_aes256gcm_decrypt(scratch.plaintext, nil, nil, row.payload, UInt64(row.payload.count), nil, 0,
                                                scratch.payloadKey + 32, scratch.payloadKey) == 0 else { return nil }
        }
        return seal(scratch.plaintext, count: row.keptLength, storeKey: storeKey, rowID: row.messageID)
    }

    /// The store's sealing: a fresh nonce, then AES-256-GCM under `storeKey` with the row's place
    /// as associated data; `nonce || ciphertext || tag`.
    private static func seal(_ plaintext: UnsafePointer<UInt8>, count: Int, storeKey: [UInt8], rowID: String) -> Data {
        let associatedData = Array("timeline.plaintext.\(rowID)".utf8)
        var output = [UInt8](repeating: 0, count: 12 + count + FloorRows.tagLength)
        output.withUnsafeMutableBufferPointer { output in
            let base = output.baseAddress!
            randombytes_buf(base, 12)
            var written: UInt64 = 0
            _ = crypto_aead_aes256gcm_encrypt(base + 12, &written, plaintext, UInt64(count), associatedData, UInt64(associatedData.count),
                                              nil, base, storeKey)
        }
        return Data(output)
    }

    /// Phase 2: the rows into a primary-key-only table, in large transactions.
    private static func insert(_ rows: [FloorRows.Row], sealed: [Data]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-floor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("floor.sqlite").path, configuration: configuration)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE timeline (message_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, sender_device_id TEXT,
                                       created_at INTEGER NOT NULL, plaintext BLOB)
                """)
        }
        for start in stride(from: 0, to: rows.count, by: rowsPerTransaction) {
            try queue.write { db in
                let statement = try db.cachedStatement(
                    sql: "INSERT INTO timeline (message_id, channel_id, sender_device_id, created_at, plaintext) VALUES (?, ?, ?, ?, ?)")
                for index in start..<min(start + rowsPerTransaction, rows.count) {
                    let row = rows[index]
                    statement.setUncheckedArguments([row.messageID, row.channelID, row.senderDeviceID, row.createdAt, sealed[index]])
                    try statement.execute()
                }
            }
        }
        try queue.close()
    }
}

/// Each thread's sealed rows, joined in slice order once all are done.
private final class SliceResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slices: [[Data]?]

    init(count: Int) { slices = Array(repeating: nil, count: count) }

    func set(_ slice: Int, _ value: [Data]?) {
        lock.withLock { slices[slice] = value }
    }

    func joined() throws -> [Data] {
        try lock.withLock {
            var all: [Data] = []
            for slice in slices {
                guard let slice else { throw SetupFailed("the floor's libsodium work refused one of its own rows") }
                all += slice
            }
            return all
        }
    }
}
