import E2EEMessaging
import Foundation
import Testing

@Suite("ServerTimestamp")
struct ServerTimestampTests {
    private let base: Int64 = 1_780_000_000 * 1_000_000

    @Test func restAndSocketFormsParseToTheSameInstant() throws {
        let rest = try #require(ServerTimestamp(parsing: "2026-05-28T20:26:40.123456Z"))
        let socket = try #require(ServerTimestamp(parsing: "2026-05-28T20:26:40.123456+00:00"))
        #expect(rest == socket)
        #expect(rest.microseconds == base + 123_456)
    }

    @Test func fractionIsOptionalAndShortFractionsScale() throws {
        #expect(ServerTimestamp(parsing: "2026-05-28T20:26:40Z")?.microseconds == base)
        #expect(ServerTimestamp(parsing: "2026-05-28T20:26:40+00:00")?.microseconds == base)
        #expect(ServerTimestamp(parsing: "2026-05-28T20:26:40.5Z")?.microseconds == base + 500_000)
        #expect(ServerTimestamp(parsing: "2026-05-28T20:26:40.000001Z")?.microseconds == base + 1)
    }

    @Test func convertsToTheDateFoundationParses() throws {
        let stamp = try #require(ServerTimestamp(parsing: "2026-05-28T20:26:40.123456Z"))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let whole = try #require(formatter.date(from: "2026-05-28T20:26:40Z"))
        #expect(abs(stamp.date.timeIntervalSince(whole) - 0.123456) < 1e-6)
        #expect(abs(ServerTimestamp(stamp.date).microseconds - stamp.microseconds) <= 1, "a Date round trip moves at most a microsecond")
        #expect(ServerTimestamp(Date(timeIntervalSince1970: 1_780_000_000)).microseconds == base)
        #expect(ServerTimestamp(microseconds: -1_500_000).date == Date(timeIntervalSince1970: -1.5))
    }

    @Test func offsetsAreApplied() {
        #expect(ServerTimestamp(parsing: "2026-05-28T22:26:40+02:00")?.microseconds == base)
    }

    @Test func malformedInputIsRejectedWithoutTrapping() {
        for text in ["", "2026-05-28", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-05-28T20:26:40.1234567Z",
                     "2026-05-28T20:26:40.Z", "2026-05-28T20:26:40 00:00", "2026-05-28T24:00:00Z", "abcd-ef-ghTij:kl:mnZ"] {
            #expect(ServerTimestamp(parsing: text) == nil, "\(text)")
        }
    }

    @Test func restTextRoundTripsAndDropsZeroFraction() throws {
        #expect(ServerTimestamp(microseconds: base).restText == "2026-05-28T20:26:40Z")
        #expect(ServerTimestamp(microseconds: base + 42).restText == "2026-05-28T20:26:40.000042Z")
        let before = ServerTimestamp(microseconds: -1)
        #expect(ServerTimestamp(parsing: before.restText) == before)
    }

    @Test func decodesFromJSONAndRejectsBadStrings() throws {
        let decoded = try JSONDecoder().decode([ServerTimestamp].self, from: Data(#"["2026-05-28T20:26:40.000001+00:00"]"#.utf8))
        #expect(decoded == [ServerTimestamp(microseconds: base + 1)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ServerTimestamp].self, from: Data(#"["yesterday"]"#.utf8)) }
    }

    @Test func timelineOrderBreaksTiesByID() throws {
        let json = #"{"id":"%@","channel_id":"c","content":"x","created_at":"2026-05-28T20:26:40Z"}"#
        let a = try JSONDecoder().decode(ServerMessage.self, from: Data(json.replacingOccurrences(of: "%@", with: "a").utf8))
        let b = try JSONDecoder().decode(ServerMessage.self, from: Data(json.replacingOccurrences(of: "%@", with: "b").utf8))
        #expect(ServerMessage.timelineOrder(a, b))
        #expect(!ServerMessage.timelineOrder(b, a))
    }
}
