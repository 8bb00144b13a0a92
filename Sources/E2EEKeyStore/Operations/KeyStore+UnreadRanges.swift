import GRDB

/// A stretch of a channel's history a catch-up stopped short of (docs/spec/protocol.md §3.13):
/// everything older than ``resume`` and newer than ``below`` is still to be read by the send
/// gate's scan.
package struct UnreadRange: Sendable, Equatable {
    /// The channel's verified mark when the gap opened (microseconds of server time); `nil`: the
    /// channel had none, so the range goes down to what the store holds, or the start.
    package var below: Int64?
    /// The oldest message read so far: the scan goes on from here, older.
    package var resume: TimelineCursor

    /// Creates the value.
    package init(below: Int64?, resume: TimelineCursor) {
        self.below = below
        self.resume = resume
    }
}

/// The store's side of the send gate's unread ranges and of key renewals (`v16`).
extension KeyStore {
    /// The range `channelID` still has unread, if any.
    /// - Throws: GRDB's `DatabaseError`.
    package func unreadRange(channelID: String) async throws -> UnreadRange? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT below, resume_created_at, resume_message_id FROM unread_ranges WHERE channel_id = ?",
                                             arguments: [channelID]) else { return nil }
            return UnreadRange(below: row["below"], resume: TimelineCursor(createdAt: StoreTime(microseconds: row["resume_created_at"]),
                                                                          messageID: row["resume_message_id"]))
        }
    }

    /// Records that a catch-up left `range` of `channelID` unread. With a range already
    /// recorded, the two become one: from the older `below` up to the newer `resume` (what lies
    /// between them is read again, never skipped).
    /// - Throws: GRDB's `DatabaseError`.
    package func recordUnreadRange(channelID: String, _ range: UnreadRange, at time: StoreTime) async throws {
        try await handOff.queuedWrite { db in
            try db.run("""
                INSERT INTO unread_ranges (channel_id, below, resume_created_at, resume_message_id, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (channel_id) DO UPDATE SET
                    below = CASE WHEN unread_ranges.below IS NULL OR excluded.below IS NULL THEN NULL
                                 ELSE min(unread_ranges.below, excluded.below) END,
                    resume_message_id = CASE WHEN (excluded.resume_created_at, excluded.resume_message_id) > (unread_ranges.resume_created_at, unread_ranges.resume_message_id)
                                             THEN excluded.resume_message_id ELSE unread_ranges.resume_message_id END,
                    resume_created_at = max(unread_ranges.resume_created_at, excluded.resume_created_at),
                    updated_at = excluded.updated_at
                """, [channelID, range.below, range.resume.createdAt.microseconds, range.resume.messageID, time.microseconds])
        }
    }

    /// The scan read `channelID`'s range down to `resume`: it goes on from there next time.
    /// - Throws: GRDB's `DatabaseError`.
    package func advanceUnreadRange(channelID: String, to resume: TimelineCursor, at time: StoreTime) async throws {
        try await handOff.queuedWrite { db in
            try db.run("UPDATE unread_ranges SET resume_created_at = ?, resume_message_id = ?, updated_at = ? WHERE channel_id = ?",
                       [resume.createdAt.microseconds, resume.messageID, time.microseconds, channelID])
        }
    }

    /// `channelID`'s range was read to its end.
    /// - Throws: GRDB's `DatabaseError`.
    package func clearUnreadRange(channelID: String) async throws {
        try await handOff.queuedWrite { db in try db.run("DELETE FROM unread_ranges WHERE channel_id = ?", [channelID]) }
    }

    /// When the keys were last renewed (after a rollback, or a gap too long to read).
    /// - Throws: GRDB's `DatabaseError`.
    package func keysRenewedAt() async throws -> StoreTime? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT keys_renewed_at FROM store_metadata WHERE id = 1").map { StoreTime(microseconds: $0) }
        }
    }

    /// Records a renewal of the keys at `time`: every unread range goes with it, since whatever a
    /// later copy of this store posted there was encrypted under keys now retired.
    /// - Throws: GRDB's `DatabaseError`.
    package func recordKeysRenewed(at time: StoreTime) async throws {
        try await handOff.queuedWrite { db in
            try db.run("UPDATE store_metadata SET keys_renewed_at = ? WHERE id = 1", [time.microseconds])
            try db.run("DELETE FROM unread_ranges")
        }
    }

    /// Whether this store encrypted a message (an outbox entry with content) written after `time`.
    /// - Throws: GRDB's `DatabaseError`.
    package func encryptedSince(_ time: StoreTime) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM outbox WHERE content != '' AND updated_at > ?)", arguments: [time.microseconds]) == true
        }
    }
}
