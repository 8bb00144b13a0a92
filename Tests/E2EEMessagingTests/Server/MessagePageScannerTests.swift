@testable import E2EEMessaging
import Foundation
import Testing

/// ``MessagePageScanner`` reads what `JSONDecoder` reads, and leaves the rest to it: every page
/// here is decoded both ways (``ServerJSON/decodePage(_:)`` and `JSONDecoder` through
/// ``ServerJSON/decode(_:from:)``) and the answers must be the same — the same page, or both a
/// decoding error.
@Suite("Message pages read from their bytes")
struct MessagePageScannerTests {
    @Test("a page as the server writes it is read from its bytes, and equals JSONDecoder's")
    func serverShape() throws {
        let body = Array("""
            {"messages":[{"id":"6F1C0E3A-0000-4000-8000-000000000001","channel_id":"c0ffee00-0000-4000-8000-000000000002",\
            "sender_id":"u1","sender_device_id":"d1","content":"AwJ+/w==","content_type":"e2ee.group.v1","protocol_version":2,\
            "reply_to_id":null,"reply_to":null,"attachments":[],"edited_at":null,"created_at":"2026-11-30T08:00:00.123456Z"},
            {"id":"m2","channel_id":"c2","sender_id":null,"content":"hi","created_at":"2026-11-30T08:00:01+00:00",
             "edited_at":"2026-11-30T08:00:02.5Z","protocol_version":1}],"has_more":true}
            """.utf8)
        let scanned = try #require(MessagePageScanner.scan(body))
        #expect(scanned == (try ServerJSON.decode(MessagePage.self, from: body)))
        #expect(scanned.messages.count == 2)
        #expect(scanned.messages[0].id.rawValue == "6f1c0e3a-0000-4000-8000-000000000001")  // normalised like JSONDecoder's
        #expect(scanned.hasMore)
    }

    @Test("what the scanner leaves is JSONDecoder's to accept or refuse", arguments: [
        #"{"messages":[{"id":"a","channel_id":"c","content":"x\/y","created_at":"2026-11-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[{"id":"a","channel_id":"c","content":"\u00e9","created_at":"2026-11-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[{"id":"a","id":"b","channel_id":"c","content":"x","created_at":"2026-11-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[{"id":"a","channel_id":"c","content":"x","protocol_version":2.0,"created_at":"2026-11-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[{"id":"a","channel_id":"c","content":"x","created_at":"2026-13-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[{"id":"a","channel_id":"c","content":null,"created_at":"2026-11-30T08:00:00Z"}],"has_more":false}"#,
        #"{"messages":[],"has_more":false} x"#,
        #"{"messages":[]}"#,
        #"{"messages":null,"has_more":true}"#,
        #"[]"#,
    ])
    func leftToJSONDecoder(_ text: String) {
        let body = Array(text.utf8)
        #expect(MessagePageScanner.scan(body) == nil)
        #expect(answer(ServerJSON.decodePage, body) == answer({ try ServerJSON.decode(MessagePage.self, from: $0) }, body))
    }

    @Test("pages of every shape, and each cut short and with a byte changed, get JSONDecoder's answer")
    func differential() {
        var random = SplitMix(seed: 47)
        var accepted = 0
        var scannedCount = 0
        for round in 0..<3_000 {
            let page = Self.page(&random)
            var variants = [page]
            if !page.isEmpty {
                variants.append(Array(page.prefix(Int(random.next() % UInt64(page.count)))))
                var changed = page
                changed[Int(random.next() % UInt64(page.count))] = Self.noise[Int(random.next() % UInt64(Self.noise.count))]
                variants.append(changed)
            }
            for body in variants {
                let fast = answer(ServerJSON.decodePage, body)
                let decoder = answer({ try ServerJSON.decode(MessagePage.self, from: $0) }, body)
                #expect(fast == decoder, "round \(round): \(String(decoding: body, as: UTF8.self))")
                if decoder != nil { accepted += 1 }
                if MessagePageScanner.scan(body) != nil { scannedCount += 1 }
            }
        }
        // The fast path is taken, not everything left to JSONDecoder: of the pages JSONDecoder
        // accepts, those with no escape, no byte outside ASCII and no doubled field are scanned.
        #expect(accepted > 300)
        #expect(scannedCount * 2 > accepted, "\(scannedCount) of \(accepted) accepted pages scanned")
    }

    /// The page, or nil for an error.
    private func answer(_ decode: ([UInt8]) throws -> MessagePage, _ body: [UInt8]) -> MessagePage? {
        try? decode(body)
    }

    private static let noise = Array(#"{}[],:" \0aZ9-.eE\é"#.utf8)

    /// A page body: fields in any order, present, absent or null, with values of every kind,
    /// unknown keys with nested values, whitespace between tokens.
    private static func page(_ random: inout SplitMix) -> [UInt8] {
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        func space() -> String { pick(["", "", "", " ", "\n  ", "\t"]) }
        var messages: [String] = []
        for _ in 0..<Int(random.next() % 4) {
            var fields: [String] = []
            func field(_ key: String, _ values: [String]) {
                if random.next() % 10 != 0 { fields.append("\"\(key)\"\(space()):\(space())\(pick(values))") }
            }
            field("id", [#""m-\#(random.next() % 1000)""#, #""M-AB""#, "null", "7"])
            field("channel_id", [#""c1""#, #""C1""#])
            field("sender_id", [#""u1""#, "null"])
            field("sender_device_id", [#""d1""#, "null", #""D1""#])
            field("content", [#""AwJ+/w==""#, #""plain text""#, #""esc\"aped""#, #""\u0041""#, "null", #""""#])
            field("content_type", [#""e2ee.group.v1""#, "null", "3"])
            field("protocol_version", ["2", "1", "null", "-1", "0", "007", "2.0", "1e2", #""2""#, "99999999999999999999"])
            field("reply_to_id", ["null", #""m-1""#])
            field("reply_to", ["null", #"{"id":"m-1","x":[1,2.5,-3e4,true,false,null,{}]}"#])
            field("attachments", ["[]", #"[{"name":"a","size":1}]"#, "[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]"])
            field("edited_at", ["null", #""2026-11-30T08:00:02.5Z""#, #""2026-02-30T08:00:02Z""#, #""yesterday""#])
            field("created_at", [#""2026-11-30T08:00:00Z""#, #""2026-11-30T08:00:00.000001+00:00""#, #""2026-11-30 08:00:00""#, "0"])
            field("extra", ["1", "-0.5", "true", #""x""#, "[]", "{}"])
            if random.next() % 20 == 0, let repeated = fields.first { fields.append(repeated) }
            fields.shuffle(using: &random)
            messages.append("{\(space())" + fields.joined(separator: ",\(space())") + "\(space())}")
        }
        var top: [String] = []
        if random.next() % 15 != 0 { top.append("\"messages\":\(space())[" + messages.joined(separator: ",") + "]") }
        if random.next() % 15 != 0 { top.append("\"has_more\":\(pick(["true", "false", "null", "1"]))") }
        if random.next() % 4 == 0 { top.append("\"next\":\(pick(["null", #""x""#, "{\"a\":[]}"]))") }
        top.shuffle(using: &random)
        return Array((space() + "{" + top.joined(separator: ",") + "}" + space()).utf8)
    }
}

/// A seeded generator, so a failing round can be replayed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
