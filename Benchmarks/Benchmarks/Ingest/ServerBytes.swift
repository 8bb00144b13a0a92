@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The bytes the server sends for the workload's rows, as docs/spec/server-api.md §A6–§A7
/// describes them and the development server writes them: every field of a message row
/// (`reply_to_id`, `reply_to`, `edited_at` null, `attachments` empty), timestamps ending in
/// `+00:00` in socket frames and in `Z` in REST bodies, slashes unescaped.
enum ServerBytes {
    /// One `message.new` frame's text: `{"type":"message.new","message":{…}}`.
    static func frame(_ message: ServerMessage) throws -> String {
        String(decoding: try encoder.encode(Frame(message: Row(message: message, suffix: .offset))), as: UTF8.self)
    }

    /// One `GET /channels/{id}/messages` answer's body: `{"messages":[…],"has_more":…}`, oldest first.
    static func page(_ messages: [ServerMessage], hasMore: Bool) throws -> [UInt8] {
        Array(try encoder.encode(Page(messages: messages.map { Row(message: $0, suffix: .zulu) }, hasMore: hasMore)))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    private struct Frame: Encodable {
        let type = "message.new"
        let message: Row
    }

    private struct Page: Encodable {
        let messages: [Row]
        let hasMore: Bool

        enum CodingKeys: String, CodingKey { case messages, hasMore = "has_more" }
    }

    /// A message row with every field the server writes, nulls included.
    private struct Row: Encodable {
        let message: ServerMessage
        let suffix: ServerTimestamp.Suffix

        enum CodingKeys: String, CodingKey {
            case id, channelID = "channel_id", senderID = "sender_id", senderDeviceID = "sender_device_id", content
            case contentType = "content_type", protocolVersion = "protocol_version", replyToID = "reply_to_id", replyTo = "reply_to"
            case attachments, editedAt = "edited_at", createdAt = "created_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message.id.rawValue, forKey: .id)
            try container.encode(message.channelID.rawValue, forKey: .channelID)
            try container.encode(message.senderID?.rawValue, forKey: .senderID)
            try container.encode(message.senderDeviceID?.rawValue, forKey: .senderDeviceID)
            try container.encode(message.content, forKey: .content)
            try container.encode(message.contentType, forKey: .contentType)
            try container.encode(message.protocolVersion, forKey: .protocolVersion)
            try container.encode(message.replyToID?.rawValue, forKey: .replyToID)
            try container.encodeNil(forKey: .replyTo)
            try container.encode([String](), forKey: .attachments)
            try container.encode(message.editedAt?.text(suffix: suffix), forKey: .editedAt)
            try container.encode(message.createdAt.text(suffix: suffix), forKey: .createdAt)
        }
    }
}
