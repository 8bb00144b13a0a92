import GRDB
import Hummingbird

/// Messages: paged history (`before` strictly older-than, pages oldest → newest), send, edit,
/// delete, with their events.
struct MessageRoutes {
    let state: ServerState
    static let defaultLimit = 50
    static let maxLimit = 100
    static let contentTypeLimit = 32

    func register(on group: RouterGroup<DevRequestContext>) {
        group.get("{id}/messages") { request, context in try await page(request, context) }
        group.post("{id}/messages") { request, context in try await send(request, context) }
        MessageEditRoutes(state: state).register(on: group)
    }

    private func page(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let channelID = try context.uuidParameter("id")
        let query = request.formQuery
        var limitValue = Self.defaultLimit
        if let raw = query["limit"] {
            guard let value = Int(raw) else {
                throw APIError.validation(["query", "limit"], "Input should be a valid integer", type: "int_parsing")
            }
            guard (0...Self.maxLimit).contains(value) else {
                throw APIError.validation(["query", "limit"], "Input should be between 0 and \(Self.maxLimit)", type: "less_than_equal")
            }
            limitValue = value
        }
        var beforeValue: Int64?
        if let raw = query["before"] {
            guard let value = Timestamp.parse(raw) else {
                throw APIError.validation(["query", "before"], "Input should be a valid datetime", type: "datetime_parsing")
            }
            beforeValue = value
        }
        let (before, limit) = (beforeValue, limitValue)
        let hidden = await state.faults.hiddenSenderDevice
        if let fault = await state.faults.takePageFault(channelID: channelID),
           let faulted = try await MessagePageFaults(state: state).apply(fault, channelID: channelID, before: before, limit: limit) {
            return faulted
        }
        let omitted = await state.faults.omittedRows[channelID.lowercased()] ?? []
        let rows = try await state.database.read { db -> [JSONValue] in
            try state.requireMember(db, channelID: channelID, userID: caller.userID)
            // A row shown to one device (the `postAs … visibleTo:` fault) is in that device's pages only.
            var sql = "SELECT * FROM messages WHERE channel_id = ? AND (visible_to IS NULL OR visible_to = ?)"
            var values: [any DatabaseValueConvertible] = [channelID, caller.deviceID]
            if let hidden {
                sql += " AND (sender_device_id IS NULL OR sender_device_id != ?)"
                values.append(hidden)
            }
            if !omitted.isEmpty {
                sql += " AND id NOT IN (\(Array(repeating: "?", count: omitted.count).joined(separator: ",")))"
                values += omitted.sorted().map { $0 as any DatabaseValueConvertible }
            }
            if let before {
                sql += " AND created_at < ?"
                values.append(before)
            }
            sql += " ORDER BY created_at DESC, seq DESC LIMIT ?"
            values.append(limit + 1)
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values)).map { row in
                Representation.message(row, suffix: .zulu, replyTo: try replySummary(db, row["reply_to_id"]))
            }
        }
        if limit == 0 { return .json(.object(["messages": .array([]), "has_more": .bool(true)])) }
        let page = Array(rows.prefix(limit).reversed())
        return .json(.object(["messages": .array(page), "has_more": .bool(rows.count > limit)]))
    }

    private func replySummary(_ db: Database, _ id: String?) throws -> JSONValue {
        guard let id, let row = try Row.fetchOne(db, sql: "SELECT id, sender_id, content FROM messages WHERE id = ?", arguments: [id])
        else { return .null }
        return .object(["id": .string(row["id"]), "sender_id": .optional(row["sender_id"]), "content": .string(row["content"])])
    }

    private func send(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let channelID = try context.uuidParameter("id")
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let content = try body.string("content")
        let contentType = try body.optionalString("content_type") ?? "text"
        let protocolVersion = try body.optionalInt("protocol_version") ?? 1
        let senderDeviceID = try body.optionalUUID("sender_device_id")
        let replyToID = try body.optionalUUID("reply_to_id")
        _ = try body.strings("attachment_ids", required: false)
        guard contentType.count <= Self.contentTypeLimit else { throw APIError.internalError() }
        let id = state.newID()
        let tieRun = await state.faults.tieRunLength ?? (state.quirks.tiedTimestamps ? state.quirks.tieRunLength : nil)
        let createdAt = try await state.database.read { db -> Int64 in
            try state.requireMember(db, channelID: channelID, userID: caller.userID)
            if let senderDeviceID, try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE id = ?", arguments: [senderDeviceID]) == nil {
                throw APIError.internalError() // unknown sender_device_id: the reference server's FK 500
            }
            return try StoredMessage.nextCreatedAt(db, channelID: channelID, now: state.now, tieRun: tieRun)
        }
        let message = StoredMessage(
            id: id, channelID: channelID, senderID: caller.userID, senderDeviceID: senderDeviceID, content: content,
            contentType: contentType, protocolVersion: protocolVersion, replyToID: replyToID, createdAt: createdAt, visibleTo: nil
        )
        let answer = Representation.message(message.row, suffix: .zulu)
        // A dropped post is answered and forgotten; a held one is answered now and stored at release.
        if await state.faults.interceptPost(message, postedBy: caller.deviceID) != nil {
            return .json(answer, status: .created)
        }
        let event = ServerEvent.messageNew(Representation.message(message.row, suffix: state.socketSuffix))
        try await state.publishAround(channelID: channelID, event: event) {
            try await state.database.write { db in try message.insert(db) }
        }
        try await state.faults.duplicateIfAsked(message)
        return .json(answer, status: .created)
    }
}

extension ServerState {
    /// Commits `write` and publishes `event` in the order the faults or the quirk dictate: event
    /// first, then the write after a random delay, under ``FaultInjector/delayCommits(upTo:)``;
    /// event first, then the write after the commit delay, under `publishBeforeCommit`;
    /// otherwise write first. The event of a row shown to one device (`visibleTo`) goes to that
    /// device's sockets only.
    func publishAround(channelID: String, event: JSONValue, visibleTo: String? = nil, write: () async throws -> Void) async throws {
        if let delay = await faults.drawCommitDelay() {
            await hub.publish(toChannel: channelID, event, onlyDevice: visibleTo)
            try await delay.sleep()
            try await write()
        } else if quirks.publishBeforeCommit {
            await hub.publish(toChannel: channelID, event, onlyDevice: visibleTo)
            try await quirks.commitDelay.sleep()
            try await write()
        } else {
            try await write()
            await hub.publish(toChannel: channelID, event, onlyDevice: visibleTo)
        }
    }
}
