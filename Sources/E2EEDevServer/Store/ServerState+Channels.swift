import GRDB

extension ServerState {
    /// The channel row.
    /// - Throws: ``APIError`` 404 when there is no such channel.
    func channelRow(_ db: Database, _ channelID: String) throws -> Row {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM channels WHERE id = ?", arguments: [channelID]) else {
            throw APIError.detail(.notFound, "Channel not found")
        }
        return row
    }

    /// The caller's role in the channel.
    /// - Throws: ``APIError`` 404 for an unknown channel, 403 when the caller is not a member.
    @discardableResult
    func requireMember(_ db: Database, channelID: String, userID: String) throws -> String {
        _ = try channelRow(db, channelID)
        guard let role = try String.fetchOne(db, sql: "SELECT role FROM members WHERE channel_id = ? AND user_id = ?",
                                             arguments: [channelID, userID])
        else { throw APIError.forbidden }
        return role
    }

    /// Adds a member row (no-op when already a member).
    func addMember(_ db: Database, channelID: String, userID: String, role: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO members (channel_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)",
                       arguments: [channelID, userID, role, now])
    }

    /// Creates a channel owned by `creatorID` and returns its row.
    func createChannel(_ db: Database, name: String?, isDM: Bool, encryptionType: String, creatorID: String) throws -> Row {
        let id = newID()
        try db.execute(sql: "INSERT INTO channels (id, name, is_dm, encryption_type, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [id, name, isDM, encryptionType, creatorID, now])
        try addMember(db, channelID: id, userID: creatorID, role: "owner")
        return try channelRow(db, id)
    }
}
