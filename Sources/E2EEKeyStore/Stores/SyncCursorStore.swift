import Foundation
import GRDB

/// How far each channel's history has been fetched.
package struct SyncCursorStore: Sendable {
    static let table = "sync_cursors"

    /// A store.
    public init() {}

    /// The channel's cursor.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadCursor(channelID: String, _ db: Database) throws -> SyncCursor? {
        guard let row = try db.row("SELECT * FROM sync_cursors WHERE channel_id = ?", [channelID]) else { return nil }
        let t = Self.table
        func cursor(_ time: String, _ id: String) throws -> TimelineCursor? {
            guard let micros: Int64 = try row.decodeIfPresent(time, table: t), let messageID: String = try row.decodeIfPresent(id, table: t) else { return nil }
            return TimelineCursor(createdAt: StoreTime(microseconds: micros), messageID: messageID)
        }
        let complete: Int64 = try row.decode("history_complete", table: t)
        return SyncCursor(channelID: channelID, newest: try cursor("newest_created_at", "newest_message_id"),
                          oldest: try cursor("oldest_created_at", "oldest_message_id"), historyComplete: complete == 1,
                          updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t)))
    }

    /// Saves the channel's cursor.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeCursor(_ cursor: SyncCursor, _ db: Database) throws {
        try db.run(
            """
            INSERT OR REPLACE INTO sync_cursors (channel_id, newest_created_at, newest_message_id, oldest_created_at, oldest_message_id, history_complete, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [cursor.channelID, cursor.newest?.createdAt.microseconds, cursor.newest?.messageID, cursor.oldest?.createdAt.microseconds,
             cursor.oldest?.messageID, cursor.historyComplete ? 1 : 0, cursor.updatedAt.microseconds]
        )
    }
}
