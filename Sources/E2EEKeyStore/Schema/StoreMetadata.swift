import E2EECrypto
import Foundation
import GRDB

/// The single metadata row: how the key is obtained (with the Argon2id salt and parameters for
/// a passphrase) and the key-check value that tells a wrong key apart before anything is read.
struct StoreMetadata: Sendable {
    static let table = "store_metadata"
    /// The fixed plaintext sealed as the key-check value.
    static let keyCheckPlaintext = Array("E2EEKeyStore key check v1".utf8)

    var keySource: StoreKeySource
    var kdfSalt: [UInt8]?
    var kdfParameters: Argon2id.Parameters?
    var keyCheck: Data

    /// What a file holds before the key is known.
    enum Inspection {
        /// No table at all (or only the migrations table, or an interrupted creation):
        /// a new store can be made here.
        case empty
        /// An existing store.
        case store(StoreMetadata)
    }

    /// Reads the metadata without any key.
    /// - Throws: ``KeyStoreError/notAKeyStore`` for a database with other tables,
    ///   ``KeyStoreError/corruptColumn(table:column:)`` for a malformed row.
    static func inspect(_ db: Database) throws -> Inspection {
        guard try db.tableExists(table) else {
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
            guard tables.isEmpty else { throw KeyStoreError.notAKeyStore }
            return .empty
        }
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM store_metadata WHERE id = 1") else {
            // Tables without a metadata row: a creation interrupted before its metadata commit
            // holds no data and may be finished; a file with data but no metadata is not ours.
            let rows = try Int.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM account) + (SELECT COUNT(*) FROM identity_keys) + (SELECT COUNT(*) FROM sessions)
                     + (SELECT COUNT(*) FROM timeline) + (SELECT COUNT(*) FROM outbox)
                """) ?? 0
            guard rows == 0 else { throw KeyStoreError.notAKeyStore }
            return .empty
        }
        let sourceText: String = try row.decode("key_source", table: table)
        guard let source = StoreKeySource(rawValue: sourceText) else { throw KeyStoreError.corruptColumn(table: table, column: "key_source") }
        var parameters: Argon2id.Parameters?
        var salt: [UInt8]?
        if source == .passphrase {
            let saltData: Data = try row.decode("kdf_salt", table: table)
            let iterations: Int64 = try row.decode("kdf_iterations", table: table)
            let memory: Int64 = try row.decode("kdf_memory_kib", table: table)
            guard iterations > 0, memory > 0 else { throw KeyStoreError.corruptColumn(table: table, column: "kdf_iterations") }
            salt = [UInt8](saltData)
            parameters = try Self.checkedKDF(Argon2id.Parameters(iterations: UInt64(iterations), memoryKiB: UInt64(memory)))
        }
        let check: Data = try row.decode("key_check", table: table)
        return .store(StoreMetadata(keySource: source, kdfSalt: salt, kdfParameters: parameters, keyCheck: check))
    }

    /// `parameters` when they are within the store's bounds (`ProtocolLimits`).
    /// - Throws: ``KeyStoreError/kdfParametersOutOfBounds(iterations:memoryKiB:)``.
    static func checkedKDF(_ parameters: Argon2id.Parameters) throws -> Argon2id.Parameters {
        guard ProtocolLimits.storeKDFIterationsRange.contains(parameters.iterations),
              ProtocolLimits.storeKDFMemoryKiBRange.contains(parameters.memoryKiB) else {
            throw KeyStoreError.kdfParametersOutOfBounds(iterations: parameters.iterations, memoryKiB: parameters.memoryKiB)
        }
        return parameters
    }

    /// Checks that `sealer` opens the key-check value.
    /// - Throws: ``KeyStoreError/wrongKey``.
    func verify(with sealer: Sealer) throws {
        do {
            let opened = try sealer.open(keyCheck, table: Self.table, column: "key_check", rowID: "1")
            guard opened == SecretBytes(copying: Self.keyCheckPlaintext) else { throw KeyStoreError.wrongKey }
        } catch {
            throw KeyStoreError.wrongKey
        }
    }

    /// Writes the metadata row of a new store.
    static func create(_ db: Database, source: StoreKeySource, salt: [UInt8]?, parameters: Argon2id.Parameters?, sealer: Sealer, now: Int64) throws {
        let check = try sealer.seal(SecretBytes(copying: keyCheckPlaintext), table: table, column: "key_check", rowID: "1")
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO store_metadata (id, key_source, kdf_salt, kdf_iterations, kdf_memory_kib, key_check, created_at)
                VALUES (1, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [source.rawValue, salt.map { Data($0) }, parameters.map { Int64(clamping: $0.iterations) },
                        parameters.map { Int64(clamping: $0.memoryKiB) }, check, now]
        )
    }
}
