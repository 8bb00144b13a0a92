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
