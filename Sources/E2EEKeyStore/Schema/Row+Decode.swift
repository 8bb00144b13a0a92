import Foundation
import GRDB

extension Row {
    /// The non-null value of `column`, or a typed error naming the table and column (GRDB's own
    /// subscript would trap on a NULL or a wrong type, and the file is input).
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``.
    func decode<T: DatabaseValueConvertible>(_ column: String, table: String) throws -> T {
        guard let value = T.fromDatabaseValue(self[column] as DatabaseValue) else {
            throw KeyStoreError.corruptColumn(table: table, column: column)
        }
        return value
    }

    /// The value of a nullable `column`: nil for NULL, a typed error for a wrong type.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``.
    func decodeIfPresent<T: DatabaseValueConvertible>(_ column: String, table: String) throws -> T? {
        let raw: DatabaseValue = self[column]
        if raw.isNull { return nil }
        guard let value = T.fromDatabaseValue(raw) else { throw KeyStoreError.corruptColumn(table: table, column: column) }
        return value
    }

    /// A 32-bit unsigned id column.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` outside `0...UInt32.max`.
    func decodeUInt32(_ column: String, table: String) throws -> UInt32 {
        let value: Int64 = try decode(column, table: table)
        guard let id = UInt32(exactly: value) else { throw KeyStoreError.corruptColumn(table: table, column: column) }
        return id
    }

    /// A column holding one of an enum's raw values.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``.
    func decodeEnum<E: RawRepresentable>(_ column: String, table: String) throws -> E where E.RawValue == String {
        let text: String = try decode(column, table: table)
        guard let value = E(rawValue: text) else { throw KeyStoreError.corruptColumn(table: table, column: column) }
        return value
    }
}

extension Row {
    /// The non-null value at `index` (for hot paths that select a fixed column list; a name
    /// lookup costs a case-insensitive search per column).
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` naming `column`.
    func decode<T: DatabaseValueConvertible>(at index: Int, column: String, table: String) throws -> T {
        guard index < count, let value = T.fromDatabaseValue(self[index] as DatabaseValue) else {
            throw KeyStoreError.corruptColumn(table: table, column: column)
        }
        return value
    }

    /// The value at `index`: nil for NULL, a typed error for a wrong type.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)`` naming `column`.
    func decodeIfPresent<T: DatabaseValueConvertible>(at index: Int, column: String, table: String) throws -> T? {
        guard index < count else { throw KeyStoreError.corruptColumn(table: table, column: column) }
        let raw: DatabaseValue = self[index]
        if raw.isNull { return nil }
        guard let value = T.fromDatabaseValue(raw) else { throw KeyStoreError.corruptColumn(table: table, column: column) }
        return value
    }
}
