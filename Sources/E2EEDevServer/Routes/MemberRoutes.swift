import GRDB
import Hummingbird

/// `/api/v1/channels/{id}/members`: list, and add (`channel.new` to the added user only).
struct MemberRoutes {
    let state: ServerState

    private static let memberQuery = """
        SELECT m.user_id, m.role, m.joined_at, u.username, u.display_name FROM members m
        JOIN users u ON u.id = m.user_id WHERE m.channel_id = ?
        """

    func register(on group: RouterGroup<DevRequestContext>) {
        group.get("{id}/members") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let domain = state.configuration.serverDomain
            let members = try await state.database.read { db in
                try state.requireMember(db, channelID: channelID, userID: caller.userID)
                return try Row.fetchAll(db, sql: Self.memberQuery, arguments: [channelID]).map { Representation.member($0, domain: domain) }
            }
            return Response.json(.array(members))
        }
        group.post("{id}/members") { request, context in
            let caller = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let userID = try BodyReader(body: try await request.jsonObject(context: context)).uuid("user_id")
            let domain = state.configuration.serverDomain
            let suffix = state.socketSuffix
            let (member, channel) = try await state.database.write { db -> (JSONValue, JSONValue) in
                try state.requireMember(db, channelID: channelID, userID: caller.userID)
                let channel = try state.channelRow(db, channelID)
                guard !(channel["is_dm"] as Bool) else { throw APIError.detail(.badRequest, "Cannot add members to a DM") }
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [userID]) != nil else {
                    throw APIError.detail(.notFound, "User not found")
                }
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM members WHERE channel_id = ? AND user_id = ?", arguments: [channelID, userID]) == nil
                else { throw APIError.detail(.conflict, "User is already a member") }
                try state.addMember(db, channelID: channelID, userID: userID, role: "member")
                guard let member = try Row.fetchOne(db, sql: Self.memberQuery + " AND m.user_id = ?", arguments: [channelID, userID])
                else { throw APIError.internalError() }
                return (Representation.member(member, domain: domain), Representation.channel(channel, suffix: suffix))
            }
            await state.hub.memberAdded(userID: userID, channelID: channelID)
            await state.hub.publish(toUser: userID, ServerEvent.channelNew(channel))
            return Response.json(member, status: .created)
        }
    }
}
