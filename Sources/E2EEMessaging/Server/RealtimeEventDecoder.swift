import Foundation

/// Decodes server text frames into ``RealtimeUpdate``s; never throws, never traps.
///
/// One pass of `JSONDecoder` per frame: the frame's `type` is read from the same keyed container
/// as its body, so a live message is parsed once, not once to find its type and again to decode it.
public struct RealtimeEventDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// The update for one text frame: an event, or ``RealtimeUpdate/malformedFrame(reason:byteCount:)``.
    public func decode(_ text: String) -> RealtimeUpdate {
        let data = Data(text.utf8)
        guard let frame = try? JSONDecoder().decode(Frame.self, from: data) else {
            return .malformedFrame(reason: "not a JSON object", byteCount: data.count)
        }
        switch frame.content {
        case .event(let event): return .event(event)
        case .noType: return .malformedFrame(reason: "no type", byteCount: data.count)
        case .badPayload(let type): return .malformedFrame(reason: "bad \(type.prefix(40)) payload", byteCount: data.count)
        }
    }

    /// One frame: a JSON object, read once. Decoding throws only when the frame is not a JSON
    /// object; everything after that is an outcome.
    private struct Frame: Decodable {
        enum Content {
            case event(RealtimeEvent)
            case noType
            case badPayload(type: String)
        }

        let content: Content

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            guard let type = try? object.decode(String.self, forKey: .type) else {
                if let error = try? object.decode(String.self, forKey: .error) {
                    content = .event(.serverError(String(error.prefix(200))))
                } else {
                    content = .noType
                }
                return
            }
            do {
                content = .event(try Self.event(type: type, object))
            } catch {
                content = .badPayload(type: type)
            }
        }

        private static func event(type: String, _ object: KeyedDecodingContainer<Key>) throws -> RealtimeEvent {
            switch type {
            case "message.new": return .messageNew(try object.decode(ServerMessage.self, forKey: .message))
            case "message.edit": return .messageEdit(try object.decode(MessageEdit.self, forKey: .message))
            case "message.delete":
                return .messageDelete(messageID: MessageID(try object.decode(String.self, forKey: .messageID)),
                                      channelID: ChannelID(try object.decode(String.self, forKey: .channelID)))
            case "typing.start", "typing.stop":
                return .typing(userID: UserID(try object.decode(String.self, forKey: .userID)),
                               channelID: ChannelID(try object.decode(String.self, forKey: .channelID)), started: type == "typing.start")
            case "channel.new": return .channelNew(try object.decode(ServerChannel.self, forKey: .channel))
            case "keys.low_otp":
                return .lowOneTimePreKeys(deviceID: DeviceID(try object.decode(String.self, forKey: .deviceID)),
                                          remaining: try object.decode(Int.self, forKey: .remaining))
            case "sender_key.new":
                return .senderKeyNew(channelID: ChannelID(try object.decode(String.self, forKey: .channelID)),
                                     deviceID: DeviceID(try object.decode(String.self, forKey: .deviceID)))
            default: return .unknown(type: String(type.prefix(100)))
            }
        }
    }

    private enum Key: String, CodingKey {
        case type, error, message, channel, remaining
        case messageID = "message_id"
        case channelID = "channel_id"
        case userID = "user_id"
        case deviceID = "device_id"
    }
}
