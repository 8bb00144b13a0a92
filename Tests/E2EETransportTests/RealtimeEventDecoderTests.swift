import E2EEMessaging
import Testing

@Suite("Realtime event decoder")
struct RealtimeEventDecoderTests {
    private let decoder = RealtimeEventDecoder()

    @Test func socketPayloadsWithOffsetTimestampsDecode() {
        let text = #"{"type":"message.new","message":{"id":"m","channel_id":"c","sender_id":"u","sender_device_id":null,"content":"x","content_type":"text","protocol_version":1,"reply_to_id":null,"reply_to":null,"attachments":[],"edited_at":null,"created_at":"2026-05-28T20:26:40.5+00:00"}}"#
        guard case .event(.messageNew(let message)) = decoder.decode(text) else { Issue.record("not decoded"); return }
        #expect(message.createdAt == ServerTimestamp(microseconds: 1_780_000_000_500_000))
        #expect(decoder.decode(#"{"type":"keys.low_otp","device_id":"d","remaining":3}"#) == .event(.lowOneTimePreKeys(deviceID: "d", remaining: 3)))
        #expect(decoder.decode(#"{"type":"message.edit","message":{"id":"m","channel_id":"c","content":"y","edited_at":"2026-05-28T20:26:40+00:00"}}"#)
                == .event(.messageEdit(MessageEdit(id: "m", channelID: "c", content: "y", editedAt: ServerTimestamp(microseconds: 1_780_000_000_000_000)))))
    }

    @Test("every event type decodes from one read of its frame")
    func everyEventTypeDecodes() {
        #expect(decoder.decode(#"{"type":"message.delete","message_id":"m","channel_id":"c"}"#) == .event(.messageDelete(messageID: "m", channelID: "c")))
        #expect(decoder.decode(#"{"type":"typing.start","user_id":"u","channel_id":"c"}"#) == .event(.typing(userID: "u", channelID: "c", started: true)))
        #expect(decoder.decode(#"{"channel_id":"c","user_id":"u","type":"typing.stop"}"#) == .event(.typing(userID: "u", channelID: "c", started: false)),
                "keys in any order")
        #expect(decoder.decode(#"{"type":"sender_key.new","channel_id":"c","device_id":"d"}"#) == .event(.senderKeyNew(channelID: "c", deviceID: "d")))
        let channel = #"{"type":"channel.new","channel":{"id":"c","name":"n","is_dm":false,"is_federated":false,"encryption_type":"e2ee_group","created_by":"u","created_at":"2026-05-28T20:26:40+00:00"}}"#
        if case .event(.channelNew(let decoded)) = decoder.decode(channel) {
            #expect(decoded.id == "c")
        } else {
            Issue.record("channel.new not decoded: \(decoder.decode(channel))")
        }
    }

    @Test("a type or an error that is not a string is no type; a body of the wrong shape is a bad payload")
    func wrongShapes() {
        let cases = [
            (#"{"type":7}"#, "no type"),
            (#"{"error":{"code":1}}"#, "no type"),
            (#"{"type":"message.new","message":"m"}"#, "bad message.new payload"),
            (#"{"type":"keys.low_otp","device_id":"d","remaining":2.5}"#, "bad keys.low_otp payload"),
            (#""type""#, "not a JSON object"),
        ]
        for (text, reason) in cases {
            #expect(decoder.decode(text) == .malformedFrame(reason: reason, byteCount: text.utf8.count), "\(text)")
        }
    }

    @Test func unknownTypesAndServerErrorsAreEventsNotFailures() {
        #expect(decoder.decode(#"{"type":"presence.update","status":"away"}"#) == .event(.unknown(type: "presence.update")))
        #expect(decoder.decode(#"{"error":"Invalid JSON"}"#) == .event(.serverError("Invalid JSON")))
    }

    @Test func malformedFramesAreReportedWithoutTheirContent() {
        let cases = ["not json", "[1,2]", "{}", #"{"type":"message.new","message":{"id":1}}"#, #"{"type":"message.delete"}"#,
                     #"{"type":"keys.low_otp","device_id":"d","remaining":"x"}"#, #"{"type":"message.new","message":{"id":"m","channel_id":"c","content":"x","created_at":"soon"}}"#]
        for text in cases {
            guard case .malformedFrame(let reason, let count) = decoder.decode(text) else { Issue.record("decoded: \(text)"); continue }
            #expect(count == text.utf8.count)
            #expect(!reason.contains("soon"))
        }
    }
}
