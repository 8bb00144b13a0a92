import Foundation
import GRDB

/// The channels the account belongs to and their member lists (public data, stored in clear).
package struct ChannelStore: Sendable {
    static let table = "channels"

    /// A store.
    public init() {}

    /// Inserts or updates a channel; its members' freshness is kept unless `membersFetchedAt`
    /// is given. A stored channel's kind (`is_dm`, `encryption_type`) and creator never change:
    /// a later listing that differs is the server's word, not a fact (docs/spec/protocol.md §5).
    /// - Throws: GRDB's `DatabaseError`.
    public func storeChannel(_ channel: ChannelRecord, _ db: Database) throws {
        try db.run(
            """
            INSERT INTO channels (id, name, is_dm, encryption_type, created_by, created_at, members_fetched_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name,
                members_fetched_at = COALESCE(excluded.members_fetched_at, channels.members_fetched_at)
            """,
            [channel.id, channel.name, channel.isDM, channel.encryptionType, channel.createdBy, channel.createdAt.microseconds,
             channel.membersFetchedAt?.microseconds]
        )
    }

    /// The channel with `id`.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    public func loadChannel(id: String, _ db: Database) throws -> ChannelRecord? {
        try db.row("SELECT * FROM channels WHERE id = ?", [id]).map(decode)
    }

    /// Every channel, oldest first.
    /// - Throws: as ``loadChannel(id:_:)``.
    public func loadChannels(_ db: Database) throws -> [ChannelRecord] {
        try db.rows("SELECT * FROM channels ORDER BY created_at, id").map(decode)
    }

    /// Removes channels the account no longer belongs to (their members go with them).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeChannel(id: String, _ db: Database) throws {
        try db.run("DELETE FROM channels WHERE id = ?", [id])
    }

    /// Replaces a channel's member list and marks it fresh at `time`.
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` for an unknown channel, GRDB's `DatabaseError`.
    public func replaceMembers(channelID: String, members: [ChannelMemberRecord], at time: StoreTime, _ db: Database) throws {
        guard try db.count("SELECT COUNT(*) FROM channels WHERE id = ?", [channelID]) == 1 else {
            throw KeyStoreError.missingRecord(.channel, id: channelID)
        }
        try db.run("DELETE FROM channel_members WHERE channel_id = ?", [channelID])
        for member in members {
            try db.run("INSERT OR REPLACE INTO channel_members (channel_id, user_id, username, role) VALUES (?, ?, ?, ?)",
                       [channelID, member.userID, member.username, member.role])
        }
        try db.run("UPDATE channels SET members_fetched_at = ? WHERE id = ?", [time.microseconds, channelID])
    }

    /// The member list last read, by user id.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadMembers(channelID: String, _ db: Database) throws -> [ChannelMemberRecord] {
        try db.rows("SELECT * FROM channel_members WHERE channel_id = ? ORDER BY user_id", [channelID]).map { row in
            ChannelMemberRecord(userID: try row.decode("user_id", table: "channel_members"),
                                username: try row.decode("username", table: "channel_members"),
                                role: try row.decode("role", table: "channel_members"))
        }
    }

    /// Marks a channel's member list stale (re-read before the next group send).
    /// - Throws: GRDB's `DatabaseError`.
    public func markMembersStale(channelID: String?, _ db: Database) throws {
        if let channelID {
            try db.run("UPDATE channels SET members_fetched_at = NULL WHERE id = ?", [channelID])
        } else {
            try db.run("UPDATE channels SET members_fetched_at = NULL")
        }
    }

    /// The devices holding sender key `keyID` of `channelID`.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadShares(channelID: String, keyID: UInt32, _ db: Database) throws -> Set<SenderKeyShare> {
        Set(try db.rows("SELECT user_id, device_id FROM sender_key_shares WHERE channel_id = ? AND key_id = ?", [channelID, Int64(keyID)]).map { row in
            SenderKeyShare(userID: try row.decode("user_id", table: "sender_key_shares"), deviceID: try row.decode("device_id", table: "sender_key_shares"))
        })
    }

    /// Records that these devices now hold sender key `keyID` of `channelID`.
    /// - Throws: GRDB's `DatabaseError` (for instance an unknown key).
    public func storeShares(channelID: String, keyID: UInt32, shares: [SenderKeyShare], at time: StoreTime, _ db: Database) throws {
        for share in shares {
            try db.run("INSERT OR REPLACE INTO sender_key_shares (channel_id, key_id, user_id, device_id, shared_at) VALUES (?, ?, ?, ?, ?)",
                       [channelID, Int64(keyID), share.userID, share.deviceID, time.microseconds])
        }
    }

    private func decode(_ row: Row) throws -> ChannelRecord {
        let t = Self.table
        let fetched: Int64? = try row.decodeIfPresent("members_fetched_at", table: t)
        return ChannelRecord(
            id: try row.decode("id", table: t), name: try row.decodeIfPresent("name", table: t), isDM: try row.decode("is_dm", table: t),
            encryptionType: try row.decode("encryption_type", table: t), createdBy: try row.decodeIfPresent("created_by", table: t),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)), membersFetchedAt: fetched.map(StoreTime.init(microseconds:))
        )
    }
}
