/// A server → client WebSocket event, decoded. Events are hints: catch up over REST.
public enum RealtimeEvent: Sendable, Equatable {
    /// `message.new`.
    case messageNew(ServerMessage)
    /// `message.edit` (partial message).
    case messageEdit(MessageEdit)
    /// `message.delete`.
    case messageDelete(messageID: MessageID, channelID: ChannelID)
    /// `typing.start` / `typing.stop`.
    case typing(userID: UserID, channelID: ChannelID, started: Bool)
    /// `channel.new`.
    case channelNew(ServerChannel)
    /// `keys.low_otp` (sent to every socket of the owner: filter by device).
    case lowOneTimePreKeys(deviceID: DeviceID, remaining: Int)
    /// `sender_key.new` (federated keys only).
    case senderKeyNew(channelID: ChannelID, deviceID: DeviceID)
    /// `{"error": …}`: the server's answer to a frame it could not read.
    case serverError(String)
    /// A well-formed event of a type this client does not know.
    case unknown(type: String)
}

/// The payload of `message.edit`.
public struct MessageEdit: Sendable, Equatable, Codable {
    /// The message id.
    public var id: MessageID
    /// Its channel.
    public var channelID: ChannelID
    /// The new content.
    public var content: String
    /// When it was edited.
    public var editedAt: ServerTimestamp?

    enum CodingKeys: String, CodingKey { case id, channelID = "channel_id", content, editedAt = "edited_at" }

    /// An edit from its parts.
    public init(id: MessageID, channelID: ChannelID, content: String, editedAt: ServerTimestamp?) {
        self.id = id
        self.channelID = channelID
        self.content = content
        self.editedAt = editedAt
    }
}

/// What a realtime connection reports: events, frames it could not decode, and its end.
public enum RealtimeUpdate: Sendable, Equatable {
    /// A decoded event.
    case event(RealtimeEvent)
    /// A frame that did not decode; the stream goes on. `reason` never contains the frame.
    case malformedFrame(reason: String, byteCount: Int)
    /// The connection ended (always the last update).
    case closed(RealtimeCloseReason)
}

/// Why a realtime connection ended.
public enum RealtimeCloseReason: Sendable, Equatable {
    /// We closed it.
    case closedByClient
    /// The server sent a close frame with this code and reason.
    case closedByServer(code: Int?, reason: String?)
    /// The connection was lost without a close frame (socket killed, network gone).
    case connectionLost(String)
}
