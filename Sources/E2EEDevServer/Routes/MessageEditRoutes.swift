import GRDB
import Hummingbird

/// `PATCH|DELETE /api/v1/channels/messages/{id}`: edit or hard-delete one's own message.
struct MessageEditRoutes {
    let state: ServerState

    func register(on group: RouterGroup<DevRequestContext>) {
        group.patch("messages/{id}") { request, context in
            let caller = try await state.authenticate(request)
            let id = try context.uuidParameter("id")
            let content = try BodyReader(body: try await request.jsonObject(context: context)).string("content")
            let (channelID, message, visibleTo) = try await ownMessage(id, userID: caller.userID)
            let editedAt = state.now
            let event = ServerEvent.messageEdit(id: id, channelID: channelID, content: content,
                                                editedAt: Timestamp.format(editedAt, suffix: state.socketSuffix))
            try await state.publishAround(channelID: channelID, event: event, visibleTo: visibleTo) {
                try await state.database.write { db in
                    try db.execute(sql: "UPDATE messages SET content = ?, edited_at = ? WHERE id = ?", arguments: [content, editedAt, id])
                }
            }
            guard case .object(var fields) = message else { throw APIError.internalError() }
            fields["content"] = .string(content)
            fields["edited_at"] = .string(Timestamp.format(editedAt, suffix: .zulu))
            return Response.json(.object(fields))
        }
        group.delete("messages/{id}") { request, context in
            let caller = try await state.authenticate(request)
            let id = try context.uuidParameter("id")
            let (channelID, _, visibleTo) = try await ownMessage(id, userID: caller.userID)
            let event = ServerEvent.messageDelete(id: id, channelID: channelID)
            try await state.publishAround(channelID: channelID, event: event, visibleTo: visibleTo) {
                try await state.database.write { db in
                    try db.execute(sql: "UPDATE messages SET reply_to_id = NULL WHERE reply_to_id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM messages WHERE id = ?", arguments: [id])
                }
            }
            return Response.noContent
        }
    }

    /// The message's channel, REST form and the one device it is shown to (if any), if it is the caller's.
    /// - Throws: ``APIError`` 404 for an unknown message, 403 for someone else's.
    private func ownMessage(_ id: String, userID: String) async throws -> (channelID: String, message: JSONValue, visibleTo: String?) {
        try await state.database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE id = ?", arguments: [id]) else {
                throw APIError.detail(.notFound, "Message not found")
            }
            guard (row["sender_id"] as String?) == userID else { throw APIError.detail(.forbidden, "Not your message") }
            return (row["channel_id"], Representation.message(row, suffix: .zulu), row["visible_to"])
        }
    }
}
