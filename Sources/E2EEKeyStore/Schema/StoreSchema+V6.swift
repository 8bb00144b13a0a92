import GRDB

extension StoreSchema {
    /// `v6`: who receives keys (docs/spec/protocol.md §5 "Who receives keys", THREATS T11). Public data
    /// only (ids and states), stored in clear.
    ///
    /// - `channel_recipients`: per channel, every device this device sent keys to (`recipient`),
    ///   holds back (`held`), keeps out (`declined`), or saw disappear (`removed`).
    /// - `known_devices`: devices this device trusts as a user's devices: those listed at first
    ///   contact with the user (and our own at registration), and every device keys went to.
    /// - `dm_participants`: a DM's two users, fixed when this device first learns the DM.
    /// - `membership_anomalies`: users listed in a DM who are not its participants (surfaced once).
    /// - `recipient_policies`: `hold` or `surface`, for the account (`scope = ''`) or a channel.
    static func createRecipientTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channel_recipients (
                channel_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('recipient', 'held', 'declined', 'removed')),
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, device_id)
            );
            CREATE INDEX channel_recipients_by_device ON channel_recipients(device_id, state);
            CREATE TABLE known_devices (
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                known_since INTEGER NOT NULL,
                PRIMARY KEY (user_id, device_id)
            );
            CREATE TABLE dm_participants (
                channel_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                PRIMARY KEY (channel_id, user_id)
            );
            CREATE TABLE membership_anomalies (
                channel_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                seen_at INTEGER NOT NULL,
                PRIMARY KEY (channel_id, user_id)
            );
            CREATE TABLE recipient_policies (
                scope TEXT PRIMARY KEY,
                policy TEXT NOT NULL CHECK (policy IN ('hold', 'surface'))
            );
            """)
    }
}
