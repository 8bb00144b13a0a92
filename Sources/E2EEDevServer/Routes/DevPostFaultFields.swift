import Hummingbird

/// The record and post fields of `POST /_dev/faults` (``DevAdminRoutes``). Switches:
/// `serve_record` (one `{device_id, to_viewer?, record}` or a list of them; `record` is
/// `"current"`, `"none"` or `{signed_pre_key, signed_pre_key_signature}`; `to_viewer` a device id
/// or null for everyone), `drop_posts` `{content_type, count}`, `hold_posts`
/// `{content_type?, from_device?}`. Actions, run after every switch, whose results the route
/// answers: `release_posts` (true) → `released` (the ids), `repost` `{message_id, channel_id}` →
/// `reposted` (the new id), `post_as` `{user_id, device_id?, channel_id, content_type, content,
/// visible_to?, protocol_version?}` → `posted_as` (the new id). A malformed field is a 422 and
/// nothing after it is applied; an unknown message, channel or user is a 404.
struct DevPostFaultFields {
    let faults: FaultInjector

    /// Sets the record and post switches `body` names.
    /// - Throws: ``APIError`` 422 for a malformed field.
    func applySwitches(_ body: JSONValue) async throws {
        if let value = body["serve_record"] {
            for (index, item) in (value.arrayValue ?? [value]).enumerated() {
                let location = value.arrayValue == nil ? ["body", "serve_record"] : ["body", "serve_record", String(index)]
                let reader = try Self.object(item, at: location)
                let record = try Self.servedRecord(item["record"], at: location + ["record"])
                await faults.serveRecord(device: try reader.uuid("device_id"), record: record, toViewer: try reader.optionalUUID("to_viewer"))
            }
        }
        if let value = body["drop_posts"] {
            let reader = try Self.object(value, at: ["body", "drop_posts"])
            guard let count = try reader.optionalInt("count") else {
                throw APIError.validation(["body", "drop_posts", "count"], "Field required", type: "missing")
            }
            await faults.dropPosts(contentType: try reader.string("content_type"), count: count)
        }
        if let value = body["hold_posts"] {
            let reader = try Self.object(value, at: ["body", "hold_posts"])
            await faults.holdPosts(contentType: try reader.optionalString("content_type"), fromDevice: try reader.optionalUUID("from_device"))
        }
    }

    /// Runs the actions `body` names and returns their results by answer field.
    /// - Throws: ``APIError`` 422 for a malformed field, 404 for an unknown message, channel or
    ///   user; GRDB's `DatabaseError`.
    func runActions(_ body: JSONValue) async throws -> [String: JSONValue] {
        var results: [String: JSONValue] = [:]
        do {
            if body["release_posts"]?.boolValue == true {
                results["released"] = .array(try await faults.releasePosts().map(JSONValue.string))
            }
            if let value = body["repost"] {
                let reader = try Self.object(value, at: ["body", "repost"])
                let id = try await faults.repost(messageID: try reader.uuid("message_id"), channelID: try reader.uuid("channel_id"))
                results["reposted"] = .string(id)
            }
            if let value = body["post_as"] {
                let reader = try Self.object(value, at: ["body", "post_as"])
                let id = try await faults.postAs(
                    userID: try reader.uuid("user_id"), deviceID: try reader.optionalUUID("device_id"),
                    channelID: try reader.uuid("channel_id"), contentType: try reader.string("content_type"),
                    content: try reader.string("content"), visibleTo: try reader.optionalUUID("visible_to"),
                    protocolVersion: try reader.optionalInt("protocol_version") ?? 2
                )
                results["posted_as"] = .string(id)
            }
        } catch let error as FaultInjector.FaultError {
            throw Self.apiError(error)
        }
        return results
    }

    /// A reader of the nested object `value`.
    /// - Throws: ``APIError`` 422 when it is not an object.
    private static func object(_ value: JSONValue, at location: [String]) throws -> BodyReader {
        guard case .object = value else {
            throw APIError.validation(location, "Input should be a valid dictionary", type: "model_attributes_type")
        }
        return BodyReader(body: value, location: location)
    }

    /// `"current"`, `"none"` or `{signed_pre_key, signed_pre_key_signature}`.
    /// - Throws: ``APIError`` 422 for anything else.
    private static func servedRecord(_ value: JSONValue?, at location: [String]) throws -> FaultInjector.ServedRecord {
        switch value?.stringValue {
        case "current": return .current
        case "none": return .absent
        default:
            guard let value, case .object = value else {
                throw APIError.validation(location, "Input should be 'current', 'none' or a record", type: "value_error")
            }
            let reader = BodyReader(body: value, location: location)
            return .given(signedPreKey: try reader.string("signed_pre_key"), signature: try reader.string("signed_pre_key_signature"))
        }
    }

    private static func apiError(_ error: FaultInjector.FaultError) -> APIError {
        switch error {
        case .notAttached: APIError.internalError()
        case .messageNotFound: APIError.detail(.notFound, "Message not found")
        case .channelNotFound: APIError.detail(.notFound, "Channel not found")
        case .userNotFound: APIError.detail(.notFound, "User not found")
        }
    }
}
