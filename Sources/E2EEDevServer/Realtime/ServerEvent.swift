/// The server → client WebSocket events of docs/spec/server-api.md.
enum ServerEvent {
    /// `message.new` with the full message (socket timestamp format).
    static func messageNew(_ message: JSONValue) -> JSONValue {
        .object(["type": .string("message.new"), "message": message])
    }

    /// `message.edit` with `{id, channel_id, content, edited_at}`.
    static func messageEdit(id: String, channelID: String, content: String, editedAt: String) -> JSONValue {
        .object([
            "type": .string("message.edit"),
            "message": .object([
                "id": .string(id),
                "channel_id": .string(channelID),
                "content": .string(content),
                "edited_at": .string(editedAt),
            ]),
        ])
    }

    /// `message.delete`, flat.
    static func messageDelete(id: String, channelID: String) -> JSONValue {
        .object(["type": .string("message.delete"), "message_id": .string(id), "channel_id": .string(channelID)])
    }

    /// `typing.start` or `typing.stop`.
    static func typing(_ type: String, userID: String, channelID: String) -> JSONValue {
        .object(["type": .string(type), "user_id": .string(userID), "channel_id": .string(channelID)])
    }

    /// `channel.new` with the full channel.
    static func channelNew(_ channel: JSONValue) -> JSONValue {
        .object(["type": .string("channel.new"), "channel": channel])
    }

    /// `keys.low_otp` for one device.
    static func lowOneTimePreKeys(deviceID: String, remaining: Int) -> JSONValue {
        .object(["type": .string("keys.low_otp"), "device_id": .string(deviceID), "remaining": .int(remaining)])
    }

    /// The reply to a non-JSON text frame (no `type`).
    static let invalidJSON: JSONValue = .object(["error": .string("Invalid JSON")])
}
