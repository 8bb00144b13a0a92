import GRDB

extension StoreSchema {
    /// `v7`: when a catch-up found that this store was rolled back (docs/spec/protocol.md §3, "Detecting a
    /// rollback"), until the keys are renewed. Kept in the file so a kill between detection and
    /// renewal still renews before the next send.
    static func recordRollbacks(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE store_metadata ADD COLUMN rollback_detected_at INTEGER")
    }
}
