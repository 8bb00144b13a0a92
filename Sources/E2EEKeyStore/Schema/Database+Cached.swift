import GRDB

extension Database {
    /// Executes `sql` through GRDB's statement cache (the hot paths run the same few statements
    /// many times).
    /// - Throws: GRDB's `DatabaseError`.
    func run(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Fetches rows of `sql` through the statement cache.
    /// - Throws: GRDB's `DatabaseError`.
    func rows(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    /// Fetches the first row of `sql` through the statement cache.
    /// - Throws: GRDB's `DatabaseError`.
    func row(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    /// The integer the first column of `sql` yields (0 when there is no row).
    /// - Throws: GRDB's `DatabaseError`.
    func count(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: sql), arguments: arguments) ?? 0
    }
}
