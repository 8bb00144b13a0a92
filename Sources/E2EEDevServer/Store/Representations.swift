import GRDB

/// JSON shapes of stored rows, as the reference server writes them.
enum Representation {
    /// A user (`GET /users/me` adds `email`).
    static func user(_ row: Row, domain: String, includeEmail: Bool = false) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(row["id"]),
            "username": .string(row["username"]),
            "display_name": .optional(row["display_name"]),
            "avatar_url": .null,
            "server_domain": .string(domain),
            "is_local": .bool(true),
            "created_at": .string(Timestamp.format(row["created_at"], suffix: .zulu)),
        ]
        if includeEmail { fields["email"] = .optional(row["email"]) }
        return .object(fields)
    }

    /// A channel.
    static func channel(_ row: Row, suffix: Timestamp.Suffix = .zulu) -> JSONValue {
        let isDM: Bool = row["is_dm"]
        return .object([
            "id": .string(row["id"]),
            "name": .optional(row["name"]),
            "is_dm": .bool(isDM),
            "is_federated": .bool(false),
            "encryption_type": .string(row["encryption_type"]),
            "created_by": .optional(row["created_by"]),
            "created_at": .string(Timestamp.format(row["created_at"], suffix: suffix)),
        ])
    }

    /// A member row joined with its user.
    static func member(_ row: Row, domain: String) -> JSONValue {
        .object([
            "user_id": .string(row["user_id"]),
            "username": .string(row["username"]),
            "server_domain": .string(domain),
            "is_local": .bool(true),
            "role": .string(row["role"]),
            "joined_at": .string(Timestamp.format(row["joined_at"], suffix: .zulu)),
            "display_name": .optional(row["display_name"]),
            "avatar_url": .null,
        ])
    }

    /// A message. `replyTo` is the summary of the message replied to, when known.
    static func message(_ row: Row, suffix: Timestamp.Suffix, replyTo: JSONValue = .null) -> JSONValue {
        let editedAt: Int64? = row["edited_at"]
        return .object([
            "id": .string(row["id"]),
            "channel_id": .string(row["channel_id"]),
            "sender_id": .optional(row["sender_id"]),
            "sender_device_id": .optional(row["sender_device_id"]),
            "content": .string(row["content"]),
            "content_type": .string(row["content_type"]),
            "protocol_version": .int(row["protocol_version"]),
            "reply_to_id": .optional(row["reply_to_id"]),
            "reply_to": replyTo,
            "attachments": .array([]),
            "edited_at": editedAt.map { .string(Timestamp.format($0, suffix: suffix)) } ?? .null,
            "created_at": .string(Timestamp.format(row["created_at"], suffix: suffix)),
        ])
    }
}
