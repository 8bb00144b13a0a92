import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import FuzzSupport
import GRDB

/// The store's metadata row, read before any key is known (`StoreMetadata.inspect`, internal:
/// `@testable import`), then checked against a key (`verify`). The file is input: the table's
/// CHECK constraints are stripped, as in a tampered file. Input: two bytes choosing each
/// column's SQLite type (2 bits per column: blob, text, integer, NULL; 0x80 of the second: no
/// row at all), then the five column values split at 0xFF.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let types = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    let fields = bytes.dropFirst(2).split(separator: 0xFF, maxSplits: 4, omittingEmptySubsequences: false).map(Array.init)
    let values = (0..<5).map { MetadataColumn.value(index: $0, type: types >> ($0 * 2) & 3, fields: fields) }
    do {
        let inspection = try StoreMetadataFixture.database.write { db -> StoreMetadata.Inspection in
            try db.execute(sql: "DELETE FROM store_metadata")
            if bytes[1] & 0x80 == 0 {
                try db.execute(sql: """
                    INSERT INTO store_metadata (id, key_source, kdf_salt, kdf_iterations, kdf_memory_kib, key_check, created_at)
                    VALUES (1, ?, ?, ?, ?, ?, 0)
                    """, arguments: StatementArguments(values))
            }
            return try StoreMetadata.inspect(db)
        }
        if case .store(let metadata) = inspection {
            try? metadata.verify(with: FuzzFixtures.sealer)
        }
    } catch is KeyStoreError {
        // The typed refusal the store gives a malformed file.
    } catch {
        PropertyCheck.require(false, "metadata refused with an untyped error: \(error)")
    }
    return 0
}

/// One column's value from the input, and back (for seeds).
enum MetadataColumn {
    static func value(index: Int, type: UInt16, fields: [[UInt8]]) -> DatabaseValue {
        guard index < fields.count else { return .null }
        let field = fields[index]
        switch type {
        case 0: return Data(field).databaseValue
        case 1: return String(decoding: field, as: UTF8.self).databaseValue
        case 2: return field.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }.databaseValue
        default: return .null
        }
    }

    /// The input that reproduces a real row (none of its values contains 0xFF: checked).
    static func seed(_ row: Row) -> [UInt8]? {
        var types: UInt16 = 0
        var fields: [[UInt8]] = []
        for (index, column) in ["key_source", "kdf_salt", "kdf_iterations", "kdf_memory_kib", "key_check"].enumerated() {
            let value: DatabaseValue = row[column]
            switch value.storage {
            case .blob(let data): fields.append(Array(data))
            case .string(let text): types |= 1 << (index * 2); fields.append(Array(text.utf8))
            case .int64(let number): types |= 2 << (index * 2); fields.append(withUnsafeBytes(of: number.bigEndian, Array.init))
            default: types |= 3 << (index * 2); fields.append([])
            }
        }
        guard !fields.joined().contains(0xFF) else { return nil }
        return [UInt8(types & 0xFF), UInt8(types >> 8)] + Array(fields.joined(separator: [0xFF]))
    }
}

/// A real store schema in memory, its metadata table without constraints.
enum StoreMetadataFixture {
    static let database: DatabaseQueue = {
        do {
            let queue = try DatabaseQueue()
            try StoreSchema.migrator.migrate(queue)
            try queue.write { db in
                try db.execute(sql: """
                    DROP TABLE store_metadata;
                    CREATE TABLE store_metadata (id INTEGER PRIMARY KEY, key_source, kdf_salt, kdf_iterations, kdf_memory_kib, key_check, created_at);
                    """)
            }
            return queue
        } catch {
            fatalError("cannot build the store fixture: \(error)")
        }
    }()
}

/// Writes rows a real store writes (raw key, passphrase) as seeds when `FUZZ_WRITE_SEEDS` is set.
@_cdecl("LLVMFuzzerInitialize")
public func initializeStoreMetadata(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard SeedWriter.folder != nil else { return 0 }
    do {
        var seeds: [[UInt8]] = []
        for (source, salt, parameters) in [(StoreKeySource.raw, nil, nil), (.passphrase, [UInt8](repeating: 7, count: 16), Argon2id.Parameters.interactive)] {
            let queue = try DatabaseQueue()
            try StoreSchema.migrator.migrate(queue)
            for attempt in 0..<16 {
                let row = try queue.write { db in
                    try db.execute(sql: "DELETE FROM store_metadata")
                    try StoreMetadata.create(db, source: source, salt: salt, parameters: parameters, sealer: FuzzFixtures.sealer, now: Int64(attempt))
                    return try Row.fetchOne(db, sql: "SELECT * FROM store_metadata")
                }
                if let seed = row.flatMap(MetadataColumn.seed) { seeds.append(seed); break }
            }
        }
        try SeedWriter.write(seeds, prefix: "row")
    } catch {
        PropertyCheck.require(false, "cannot write seeds: \(error)")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_store_metadata_main")
public func fuzzStoreMetadataMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzStoreMetadata)
}
