import Foundation

/// Decodes server text frames into ``RealtimeUpdate``s; never throws, never traps.
public struct RealtimeEventDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// The update for one text frame: an event, or ``RealtimeUpdate/malformedFrame(reason:byteCount:)``.
    public func decode(_ text: String) -> RealtimeUpdate {
        let data = Data(text.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .malformedFrame(reason: "not a JSON object", byteCount: data.count)
        }
        guard let type = object["type"] as? String else {
            if let error = object["error"] as? String { return .event(.serverError(String(error.prefix(200)))) }
            return .malformedFrame(reason: "no type", byteCount: data.count)
        }
        do {
            return .event(try event(type: type, object: object, data: data))
        } catch {
            return .malformedFrame(reason: "bad \(type.prefix(40)) payload", byteCount: data.count)
        }
    }

    private func event(type: String, object: [String: Any], data: Data) throws -> RealtimeEvent {
        let decoder = JSONDecoder()
        switch type {
        case "message.new": return .messageNew(try decoder.decode(Wrapped<ServerMessage>.self, from: data).message)
        case "message.edit": return .messageEdit(try decoder.decode(Wrapped<MessageEdit>.self, from: data).message)
        case "message.delete": return .messageDelete(messageID: MessageID(try string(object, "message_id")), channelID: ChannelID(try string(object, "channel_id")))
        case "typing.start", "typing.stop":
            return .typing(userID: UserID(try string(object, "user_id")), channelID: ChannelID(try string(object, "channel_id")), started: type == "typing.start")
        case "channel.new": return .channelNew(try decoder.decode(ChannelWrapped.self, from: data).channel)
        case "keys.low_otp":
            guard let remaining = object["remaining"] as? Int else { throw DecodeFailure() }
            return .lowOneTimePreKeys(deviceID: DeviceID(try string(object, "device_id")), remaining: remaining)
        case "sender_key.new": return .senderKeyNew(channelID: ChannelID(try string(object, "channel_id")), deviceID: DeviceID(try string(object, "device_id")))
        default: return .unknown(type: String(type.prefix(100)))
        }
    }

    private func string(_ object: [String: Any], _ key: String) throws -> String {
        guard let value = object[key] as? String else { throw DecodeFailure() }
        return value
    }

    private struct DecodeFailure: Error {}
    private struct Wrapped<T: Decodable>: Decodable { var message: T }
    private struct ChannelWrapped: Decodable { var channel: ServerChannel }
}
