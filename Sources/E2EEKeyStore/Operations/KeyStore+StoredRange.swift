import GRDB

extension KeyStore {
    /// The ids of `channelID`'s messages not marked deleted whose server time lies in
    /// `(after, through]`: what a contiguous REST read of that range must return again
    /// (docs/spec/sync.md guarantee 9).
    /// - Throws: GRDB's `DatabaseError`.
    package func undeletedMessageIDs(channelID: String, after: StoreTime, through: StoreTime) async throws -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT message_id FROM timeline WHERE channel_id = ? AND created_at > ? AND created_at <= ? AND state != 'deleted'
                """, arguments: [channelID, after.microseconds, through.microseconds])
        }
    }
}
