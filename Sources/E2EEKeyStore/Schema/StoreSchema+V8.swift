import GRDB

extension StoreSchema {
    /// `v8`: `outbox.answered_failures`, the attempts the server answered with an error.
    ///
    /// docs/spec/sync.md "Outbox": an unreachable server is not a failure. `attempts` counts every POST
    /// (a POST without an answer may have been stored, so a retry reconciles first); giving up
    /// counts only the attempts the server answered with an error, so a message queued while
    /// the server is down waits as long as it takes.
    static func countAnsweredFailures(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN answered_failures INTEGER NOT NULL DEFAULT 0 CHECK (answered_failures >= 0);
            """)
    }
}
