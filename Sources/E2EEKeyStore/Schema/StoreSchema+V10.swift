import GRDB

extension StoreSchema {
    /// `v10` (removed from the server): `timeline.removed_from_server_at`.
    ///
    /// The server's deletes are hints, not commands (docs/spec/sync.md guarantee 9): a
    /// `message.delete` event, or a message missing from two reads a few seconds apart, marks
    /// the row with the time it was seen removed; the plaintext stays. NULL: not removed (or
    /// the row came back).
    static func recordRemovalsFromServer(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE timeline ADD COLUMN removed_from_server_at INTEGER;")
    }
}
