/// A message row (the content is our opaque envelope). `reply_to` and `attachments` are not
/// decoded: our protocol carries neither in clear.
public struct ServerMessage: Sendable, Equatable, Codable {
    /// The server-made id.
    public var id: MessageID
    /// The channel.
    public var channelID: ChannelID
    /// The sender, if known.
    public var senderID: UserID?
    /// The claimed sender device (not checked by the server).
    public var senderDeviceID: DeviceID?
    /// The opaque content.
    public var content: String
    /// The content type.
    public var contentType: String?
    /// The protocol version field.
    public var protocolVersion: Int?
    /// The message replied to, if any.
    public var replyToID: MessageID?
    /// When it was last edited.
    public var editedAt: ServerTimestamp?
    /// The start of the server transaction that wrote it.
    public var createdAt: ServerTimestamp

    enum CodingKeys: String, CodingKey {
        case id, channelID = "channel_id", senderID = "sender_id", senderDeviceID = "sender_device_id", content
        case contentType = "content_type", protocolVersion = "protocol_version", replyToID = "reply_to_id"
        case editedAt = "edited_at", createdAt = "created_at"
    }

    /// Timeline order: `(createdAt, id)`.
    public static func timelineOrder(_ lhs: ServerMessage, _ rhs: ServerMessage) -> Bool {
        (lhs.createdAt, lhs.id) < (rhs.createdAt, rhs.id)
    }
}

/// One page of history, oldest → newest.
public struct MessagePage: Sendable, Equatable, Codable {
    /// The messages, oldest first.
    public var messages: [ServerMessage]
    /// Whether older messages exist.
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey { case messages, hasMore = "has_more" }

    /// A page from its parts.
    public init(messages: [ServerMessage], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// The body of `POST /channels/{id}/messages`.
public struct OutgoingMessage: Sendable, Equatable, Codable {
    /// The opaque content.
    public var content: String
    /// The content type (≤ 32 chars, checked before sending).
    public var contentType: String?
    /// The protocol version field.
    public var protocolVersion: Int?
    /// The sender device.
    public var senderDeviceID: DeviceID?
    /// The message replied to.
    public var replyToID: MessageID?

    enum CodingKeys: String, CodingKey {
        case content, contentType = "content_type", protocolVersion = "protocol_version"
        case senderDeviceID = "sender_device_id", replyToID = "reply_to_id"
    }

    /// A message body from its parts.
    public init(content: String, contentType: String? = nil, protocolVersion: Int? = nil, senderDeviceID: DeviceID? = nil, replyToID: MessageID? = nil) {
        self.content = content
        self.contentType = contentType
        self.protocolVersion = protocolVersion
        self.senderDeviceID = senderDeviceID
        self.replyToID = replyToID
    }
}
