import GRDB
import Hummingbird

/// `/api/v1/channels`: create, list, read, rename, delete, join, leave, and DMs.
struct ChannelRoutes {
    let state: ServerState

    func register(on router: Router<DevRequestContext>) {
        let group = router.group("api/v1/channels")
        group.post { request, context in try await create(request, context) }
        group.get { request, _ in
            let caller = try await state.authenticate(request)
            let channels = try await state.database.read { db in
                try Row.fetchAll(db, sql: "SELECT c.* FROM channels c JOIN members m ON m.channel_id = c.id WHERE m.user_id = ?",
                                 arguments: [caller.userID]).map { Representation.channel($0) }
            }
            return Response.json(.array(channels))
        }
        group.post("dm") { request, context in try await directMessage(request, context) }
        group.get("{id}") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let channel = try await state.database.read { db in
                try state.requireMember(db, channelID: channelID, userID: caller.userID)
                return Representation.channel(try state.channelRow(db, channelID))
            }
            return Response.json(channel)
        }
        group.patch("{id}") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let name = try Self.checkedName(BodyReader(body: try await request.jsonObject(context: context)).optionalString("name"))
            let channel = try await state.database.write { db in
                try state.requireMember(db, channelID: channelID, userID: caller.userID)
                try db.execute(sql: "UPDATE channels SET name = ? WHERE id = ?", arguments: [name, channelID])
                return Representation.channel(try state.channelRow(db, channelID))
            }
            return Response.json(channel)
        }
        group.delete("{id}") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            try await state.database.write { db in
                let role = try state.requireMember(db, channelID: channelID, userID: caller.userID)
                guard role == "owner" else { throw APIError.detail(.forbidden, "Only the owner can delete the channel") }
                try db.execute(sql: "DELETE FROM channels WHERE id = ?", arguments: [channelID])
            }
            return Response.noContent
        }
        group.post("{id}/join") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            try await state.database.write { db in
                _ = try state.channelRow(db, channelID)
                try state.addMember(db, channelID: channelID, userID: caller.userID, role: "member")
            }
            await state.hub.memberAdded(userID: caller.userID, channelID: channelID)
            return Response.noContent
        }
        group.post("{id}/leave") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            try await state.database.write { db in
                _ = try state.channelRow(db, channelID)
                try db.execute(sql: "DELETE FROM members WHERE channel_id = ? AND user_id = ?", arguments: [channelID, caller.userID])
            }
            return Response.noContent
        }
        MemberRoutes(state: state).register(on: group)
        MessageRoutes(state: state).register(on: group)
    }

    /// Longest channel name the reference server accepts (docs/spec/server-api.md §14).
    static let nameLimit = 128

    /// `name` when it is within ``nameLimit`` characters.
    /// - Throws: ``APIError`` 422 `string_too_long`, as the reference server's validation.
    static func checkedName(_ name: String?) throws -> String? {
        guard let name, name.count > nameLimit else { return name }
        throw APIError.validation(["body", "name"], "String should have at most \(nameLimit) characters", type: "string_too_long")
    }

    private func create(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let name = try Self.checkedName(body.optionalString("name"))
        let isDM = try body.optionalBool("is_dm") ?? false
        let encryptionType = try body.optionalString("encryption_type") ?? (isDM ? "x3dh" : "sender_keys")
        let (channelID, channel) = try await state.database.write { db -> (String, JSONValue) in
            let row = try state.createChannel(db, name: name, isDM: isDM, encryptionType: encryptionType, creatorID: caller.userID)
            return (row["id"], Representation.channel(row))
        }
        await state.hub.memberAdded(userID: caller.userID, channelID: channelID)
        return .json(channel, status: .created)
    }

    private func directMessage(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let otherID = try BodyReader(body: try await request.jsonObject(context: context)).uuid("user_id")
        // The reference server fails a DM with oneself with an unhandled (plain-text) 500.
        guard otherID != caller.userID else { throw APIError.internalError() }
        let (channelID, rest, socket, created) = try await state.database.write { db -> (String, JSONValue, JSONValue, Bool) in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [otherID]) != nil else {
                throw APIError.detail(.notFound, "User not found")
            }
            if let existing = try Row.fetchOne(db, sql: """
                SELECT c.* FROM channels c
                JOIN members a ON a.channel_id = c.id AND a.user_id = ?
                JOIN members b ON b.channel_id = c.id AND b.user_id = ?
                WHERE c.is_dm = 1 LIMIT 1
                """, arguments: [caller.userID, otherID]) {
                return (existing["id"], Representation.channel(existing), .null, false)
            }
            let row = try state.createChannel(db, name: nil, isDM: true, encryptionType: "x3dh", creatorID: caller.userID)
            try state.addMember(db, channelID: row["id"], userID: otherID, role: "member")
            return (row["id"], Representation.channel(row), Representation.channel(row, suffix: state.socketSuffix), true)
        }
        if created {
            for userID in [caller.userID, otherID] {
                await state.hub.memberAdded(userID: userID, channelID: channelID)
                await state.hub.publish(toUser: userID, ServerEvent.channelNew(socket))
            }
        }
        return .json(rest, status: .created)
    }
}
