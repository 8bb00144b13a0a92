import GRDB

extension StoreSchema {
    /// `v9`: `departed_channels`, the channels this account left or was removed from.
    ///
    /// A group message sent after this device left waits for a sender key that
    /// never comes. `left_at` is the `created_at` of the last message this device had read in the
    /// channel; `rejoined_at` the time it was listed again. Pending group messages in between
    /// are shown as "not a recipient" instead of being retried forever.
    static func recordDepartures(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE departed_channels (
                channel_id TEXT PRIMARY KEY NOT NULL,
                left_at INTEGER NOT NULL,
                rejoined_at INTEGER
            );
            """)
    }
}
