import Foundation
import Testing
@testable import E2EEMessaging

@Suite("Typed ids")
struct IdentifierTests {
    @Test("an id is lower-cased once where it is made: two spellings of one id are one id")
    func normalisedOnEntry() {
        let upper = ChannelID("3F2504E0-4F89-11D3-9A0C-0305E82C3301")
        let lower = ChannelID("3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(upper == lower)
        #expect(upper.rawValue == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(Set([upper, lower]).count == 1)
        #expect("\(upper)" == lower.rawValue)
    }

    @Test("server JSON decodes into normalised ids and encodes them back as strings")
    func jsonEdge() throws {
        let json = #"{"id":"AB-1","channel_id":"CD-2","sender_id":"Ef-3","sender_device_id":"GH-4","content":"x","created_at":"2026-01-01T00:00:00.000001Z"}"#
        let message = try JSONDecoder().decode(ServerMessage.self, from: Data(json.utf8))
        #expect(message.id == MessageID("ab-1"))
        #expect(message.channelID.rawValue == "cd-2")
        #expect(message.senderID == UserID("ef-3"))
        #expect(message.senderDeviceID?.rawValue == "gh-4")
        let encoded = try JSONEncoder().encode(OutgoingMessage(content: "x", senderDeviceID: DeviceID("GH-4")))
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["sender_device_id"] as? String == "gh-4")
    }

    @Test("a non-ASCII id is lower-cased like any other; an already lower-case id is kept as it is")
    func otherSpellings() {
        #expect(UserID("ÄBC").rawValue == "äbc")
        let plain = "0f0e0d0c-0b0a-0908-0706-050403020100"
        #expect(DeviceID(plain).rawValue == plain)
    }
}
