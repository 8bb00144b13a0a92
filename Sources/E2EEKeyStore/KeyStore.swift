import E2EECrypto
import Foundation
import GRDB

/// One account's store file: SQLite through GRDB (WAL, foreign keys, `secure_delete`), every
/// secret column sealed under the store key, and named operations that each commit in one
/// transaction.
///
/// Several accounts use several files. The type is `Sendable`; its async methods run on GRDB's
/// writer (serialised) or readers (concurrent, WAL snapshots). An app opens and closes the
/// store and hands it to an account; the named operations, raw `write`/`read` and the per-kind
/// stores (which all take GRDB's `Database`) are `package`, for the messaging layer and the tool
/// (docs/public-api.md).
public final class KeyStore: Sendable {
    /// The GRDB writer (a `DatabasePool` on disk, a `DatabaseQueue` in memory). Private to this
    /// file: the operations write through ``handOff`` (``write(_:)`` included), which counts
    /// every access so that its synchronous path never blocks behind one it does not know of,
    /// and read through ``read(_:)``.
    private let writer: any DatabaseWriter
    /// Seals and opens every secret column.
    package let sealer: Sealer
    /// Where the store lives (`nil` in memory).
    public let path: String?
    /// The receive path's accesses to the writer, on the calling thread when it is free.
    let handOff: WriterHandOff

    /// GRDB's writer itself, past ``handOff``'s count: only for tests that mount an access the
    /// store never makes (another of GRDB's own holding the writer).
    var uncountedWriter: any DatabaseWriter { writer }

    private init(writer: any DatabaseWriter, sealer: Sealer, path: String?) {
        self.writer = writer
        self.handOff = WriterHandOff(writer: writer)
        self.sealer = sealer
        self.path = path
    }

    /// Opens (or creates) the store at `url` with a key the app supplies.
    ///
    /// On an existing store the key is checked against the sealed key-check value before
    /// anything else is read or written; pending migrations run only after that.
    /// - Throws: ``KeyStoreError/wrongKey`` (nothing touched),
    ///   ``KeyStoreError/keySourceMismatch(storeUses:)`` for a passphrase store,
    ///   ``KeyStoreError/notAKeyStore``, ``KeyStoreError/schemaFromNewerVersion``,
    ///   ``KeyStoreError/insecureFilePermissions(path:)`` when the files cannot be made
    ///   owner-only, or GRDB's `DatabaseError` when the file cannot be opened.
    ///
    /// Every file SQLite makes for the store (the database, `-wal`, `-shm`) is owner-only
    /// (`0600`) whatever the process umask: the main file is created with that mode before
    /// SQLite opens it (SQLite gives its side files the main file's mode), and an existing
    /// store's files that allow group or other access are tightened before opening.
    public static func open(at url: URL, key: StoreKey, random: any RandomSource = SystemRandom()) throws -> KeyStore {
        try StoreFilePermissions.prepare(path: url.path)
        let pool = try DatabasePool(path: url.path, configuration: configuration())
        do {
            return try prepare(writer: pool, path: url.path, random: random) { metadata in
                if let metadata, metadata.keySource != .raw { throw KeyStoreError.keySourceMismatch(storeUses: metadata.keySource) }
                return (key, .raw, nil, nil)
            }
        } catch {
            try? pool.close()
            throw error
        }
    }

    /// Opens (or creates) the store at `url` with a passphrase: the key is derived with
    /// Argon2id, using the salt and parameters kept in the file (or, for a new store, a random
    /// salt and `parameters`).
    /// - Throws: as ``open(at:key:random:)``, plus
    ///   ``KeyStoreError/kdfParametersOutOfBounds(iterations:memoryKiB:)`` when the file's (or,
    ///   for a new store, the given) Argon2id cost is outside the store's bounds — checked before
    ///   deriving — and `CryptoError` when Argon2id cannot run.
    public static func open(
        at url: URL, passphrase: SecretBytes, parameters: Argon2id.Parameters = .moderate,
        random: any RandomSource = SystemRandom()
    ) throws -> KeyStore {
        try StoreFilePermissions.prepare(path: url.path)
        let pool = try DatabasePool(path: url.path, configuration: configuration())
        do {
            return try prepare(writer: pool, path: url.path, random: random) { metadata in
                if let metadata {
                    guard metadata.keySource == .passphrase, let salt = metadata.kdfSalt, let stored = metadata.kdfParameters else {
                        throw KeyStoreError.keySourceMismatch(storeUses: metadata.keySource)
                    }
                    return (try StoreKey.derive(passphrase: passphrase, salt: salt, parameters: stored), .passphrase, salt, stored)
                }
                let salt = random.bytes(count: Argon2id.saltLength)
                let checked = try StoreMetadata.checkedKDF(parameters)
                return (try StoreKey.derive(passphrase: passphrase, salt: salt, parameters: checked), .passphrase, salt, checked)
            }
        } catch {
            try? pool.close()
            throw error
        }
    }

    /// A store in memory (for tests of the layers above), with the same schema and sealing.
    /// - Throws: GRDB's `DatabaseError` if SQLite cannot create it.
    public static func inMemory(key: StoreKey = .random(), random: any RandomSource = SystemRandom()) throws -> KeyStore {
        let queue = try DatabaseQueue(configuration: configuration())
        return try prepare(writer: queue, path: nil, random: random) { _ in (key, .raw, nil, nil) }
    }

    /// Closes the database connections; later calls throw GRDB's `DatabaseError`.
    /// - Throws: GRDB's `DatabaseError` if a statement is still running.
    public func close() throws {
        if let pool = writer as? DatabasePool { try pool.close() }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }

    /// Runs `body` in one write transaction (committed if it returns, rolled back if it throws).
    /// - Throws: whatever `body` throws, or GRDB's `DatabaseError`.
    package func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await handOff.queuedWrite(body)
    }

    /// Runs `body` on a consistent read-only snapshot.
    /// - Throws: whatever `body` throws, or GRDB's `DatabaseError`.
    package func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await writer.read(body)
    }

    /// ``read(_:)`` for a brief point read of a few indexed rows on the receive path: on the
    /// writer connection, on the calling thread, when no access to the writer is in flight
    /// (``WriterHandOff/runIfFree(_:)``; a socket frame's lane on an idle connection, whose async
    /// read's two thread wake-ups cost more CPU than the read itself); otherwise GRDB's async
    /// read of a pool reader, beside the commit running. The writer connection sees every
    /// committed row, as a reader does.
    /// - Throws: `CancellationError` when the task is cancelled, whatever `body` throws, or
    ///   GRDB's `DatabaseError`.
    package func briefRead<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        if let value = try await handOff.runIfFree(body) { return value }
        return try await read(body)
    }

    private typealias KeyChoice = (StoreKey, StoreKeySource, [UInt8]?, Argon2id.Parameters?)

    private static func prepare(
        writer: any DatabaseWriter, path: String?, random: any RandomSource,
        chooseKey: (StoreMetadata?) throws -> KeyChoice
    ) throws -> KeyStore {
        let inspection = try writer.read { db in try StoreMetadata.inspect(db) }
        switch inspection {
        case .store(let metadata):
            let (key, _, _, _) = try chooseKey(metadata)
            let sealer = Sealer(key: key, random: random)
            try metadata.verify(with: sealer)
            let migrator = StoreSchema.migrator
            let superseded = try writer.read { db in try migrator.hasBeenSuperseded(db) }
            guard !superseded else { throw KeyStoreError.schemaFromNewerVersion }
            try migrator.migrate(writer)
            return KeyStore(writer: writer, sealer: sealer, path: path)
        case .empty:
            let (key, source, salt, parameters) = try chooseKey(nil)
            let sealer = Sealer(key: key, random: random)
            try StoreSchema.migrator.migrate(writer)
            try writer.write { db in
                try StoreMetadata.create(db, source: source, salt: salt, parameters: parameters, sealer: sealer, now: StoreTime.now().microseconds)
            }
            return KeyStore(writer: writer, sealer: sealer, path: path)
        }
    }

    /// WAL (by `DatabasePool`), foreign keys, and `secure_delete` on every connection; on the
    /// writer a larger page cache and a larger WAL between checkpoints.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "E2EEKeyStore"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            guard !db.configuration.readonly else { return }
            // The writer gets an 8 MiB page cache (batched catch-up writes touch many index
            // pages); readers keep SQLite's default 2 MiB.
            try db.execute(sql: "PRAGMA cache_size = -8192")
            // A received row dirties several index leaves on random keys, so a catch-up writes
            // ~15 KB of WAL per row. Checkpointing every 1,000 pages (SQLite's default) copied
            // and synced the same leaves over and over; every ~40 MB copies each once and syncs
            // ten times less often (docs/key-store.md, "Write-ahead log"). After a checkpoint
            // the file is cut back to that size.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(walPagesPerCheckpoint)")
            try db.execute(sql: "PRAGMA journal_size_limit = \(walPagesPerCheckpoint * 4096)")
        }
        return configuration
    }

    /// WAL pages written between automatic checkpoints (4 KiB each).
    static let walPagesPerCheckpoint = 10_000
}
