import Foundation
import E2EECrypto

/// `payload_test.json`: accepted payloads with their decoded fields and canonical encoding, and
/// one payload per refusal rule of PROTOCOL.md §6. No randomness: ids are fixed below.
enum PayloadVectors {
    static let mid = "6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab"
    static let edited = "0b7e9a1c-2d3f-4e5a-9b6c-7d8e9f0a1b2c"
    static let reply = "c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b"

    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "payload_test.json", algorithm: "E2EE-PAYLOAD", header: [
            "Message payloads (PROTOCOL.md §6): strict UTF-8 JSON; valid tests give the decoded fields and our",
            "canonical encoding (keys v, id, ts, text, edit_of, reply_to, with, delete_of, then the announcement",
            "list; no whitespace; minimal escapes). Tombstones (§6.7) and announcements (§5.15) are control payloads.",
        ])
        let head = Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"".utf8)
        let valid: [(String, String, String?, [UInt8])] = [
            ("minimal post", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1764000000000,\"text\":\"hi\"}".utf8)),
            ("keys in another order, whitespace, unknown keys (nested) ignored", "post", nil,
             Array(" { \"text\" : \"hi\", \"x\": {\"a\": [1, 2.5, null, true]}, \"ts\": 0, \"id\": \"\(mid)\", \"v\": 1 } \n".utf8)),
            ("reply_to kept, largest ts", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":9007199254740991,\"text\":\"\",\"reply_to\":\"\(reply)\"}".utf8)),
            ("edit carries edit_of = its message id", "edit", edited,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":5,\"text\":\"fixed\",\"edit_of\":\"\(edited)\",\"reply_to\":\"\(reply)\"}".utf8)),
            ("a DM payload names the other participant (with)", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":2,\"text\":\"hi\",\"with\":\"\(reply)\"}".utf8)),
            ("a tombstone names the payload id of the message it deletes (delete_of)", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":3,\"text\":\"\",\"delete_of\":\"\(edited)\"}".utf8)),
            ("a DM tombstone also names the participant", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":3,\"text\":\"\",\"with\":\"\(reply)\",\"delete_of\":\"\(edited)\"}".utf8)),
            ("an announcement: users added", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":4,\"text\":\"\",\"added\":[\"\(reply)\",\"\(edited)\"]}".utf8)),
            ("an announcement: a device approved", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":4,\"text\":\"\",\"approved\":[\"\(reply)\"]}".utf8)),
            ("an announcement: declined", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":4,\"text\":\"\",\"declined\":[\"\(edited)\"]}".utf8)),
            ("an announcement: a group accepted with no other member listed", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":4,\"text\":\"\",\"accepted\":[]}".utf8)),
            ("ts written as -0 is 0", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":-0,\"text\":\"z\"}".utf8)),
            ("escapes: quote, backslash, controls, surrogate pair, U+2028, raw non-ASCII, escaped slash", "post", nil,
             Array(("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\\\"\\\\\\n\\t\\u0001\\ud83d\\ude00\\u2028\\u00e9 \u{e9}\u{1F600} /\\/\\u007f\"}").utf8)),
            ("exactly 65,536 bytes", "post", nil, head + [UInt8](repeating: 0x61, count: 65_536 - head.count - 2) + Array("\"}".utf8)),
        ]
        for (comment, context, messageID, json) in valid {
            let payload = try MessagePayload(json: json)
            try check(payload, context: context, messageID: messageID)
            var fields = JSONObjectBuilder()
            fields.setHex("json", json)
            fields.set("context", context)
            if let messageID { fields.set("messageId", messageID) }
            var decoded = JSONObjectBuilder()
            decoded.set("id", payload.id.text)
            decoded.set("ts", payload.timestamp)
            decoded.set("text", payload.text)
            if let editOf = payload.editOf { decoded.set("edit_of", editOf.text) }
            if let replyTo = payload.replyTo { decoded.set("reply_to", replyTo.text) }
            if let with = payload.with { decoded.set("with", with.text) }
            if let deleteOf = payload.deleteOf { decoded.set("delete_of", deleteOf.text) }
            if let announcement = payload.announcement {
                decoded.set(announcement.kind.rawValue, .array(announcement.ids.map { .string($0.text) }))
            }
            fields.set("fields", decoded.json)
            fields.setHex("encoded", payload.encodedJSON().unprotectedCopy())
            file.add(VectorTest(groupType: "PayloadTest", comment: comment, fields: fields))
        }
        let base = "\"id\":\"\(mid)\",\"ts\":1,\"text\":\"t\""
        let invalid: [(String, String, String, String?, [UInt8])] = [
            ("DuplicateKey", "the same key twice at the top", "post", nil, Array("{\"v\":1,\(base),\"text\":\"u\"}".utf8)),
            ("DuplicateKeyEscaped", "a duplicate spelt with an escape", "post", nil, Array("{\"v\":1,\(base),\"t\\u0065xt\":\"u\"}".utf8)),
            ("DuplicateNestedKey", "a duplicate inside an unknown key's object", "post", nil, Array("{\"v\":1,\(base),\"x\":{\"a\":1,\"a\":2}}".utf8)),
            ("LoneSurrogate", "a lone high surrogate in text", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"a\\ud800\"}".utf8)),
            ("LoneLowSurrogateInKey", "a lone low surrogate in an unknown key", "post", nil, Array("{\"v\":1,\(base),\"\\udc00\":1}".utf8)),
            ("ByteOrderMark", "starts with a UTF-8 BOM", "post", nil, [0xEF, 0xBB, 0xBF] + Array("{\"v\":1,\(base)}".utf8)),
            ("InvalidUtf8", "a 0xff byte in text", "post", nil, head + [0xFF] + Array("\"}".utf8)),
            ("OverlongUtf8", "an overlong encoding of '/'", "post", nil, head + [0xC0, 0xAF] + Array("\"}".utf8)),
            ("EncodedSurrogate", "a surrogate encoded directly in UTF-8", "post", nil, head + [0xED, 0xA0, 0x80] + Array("\"}".utf8)),
            ("RawControlCharacter", "a raw line feed inside text", "post", nil, head + [0x0A] + Array("\"}".utf8)),
            ("WrongVersion", "v = 2", "post", nil, Array("{\"v\":2,\(base)}".utf8)),
            ("VersionWithFraction", "v = 1.0", "post", nil, Array("{\"v\":1.0,\(base)}".utf8)),
            ("VersionBoolean", "v = true", "post", nil, Array("{\"v\":true,\(base)}".utf8)),
            ("MissingVersion", "no v", "post", nil, Array("{\(base)}".utf8)),
            ("TimestampExponent", "ts = 1e3", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1e3,\"text\":\"t\"}".utf8)),
            ("TimestampFraction", "ts = 1.5", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1.5,\"text\":\"t\"}".utf8)),
            ("TimestampNegative", "ts = -1", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":-1,\"text\":\"t\"}".utf8)),
            ("TimestampTooLarge", "ts = 2^53", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":9007199254740992,\"text\":\"t\"}".utf8)),
            ("TimestampString", "ts as a string", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":\"1\",\"text\":\"t\"}".utf8)),
            ("UpperCaseId", "id in upper case", "post", nil, Array("{\"v\":1,\"id\":\"\(mid.uppercased())\",\"ts\":1,\"text\":\"t\"}".utf8)),
            ("IdNotUuid", "id without dashes", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid.split(separator: "-").joined())\",\"ts\":1,\"text\":\"t\"}".utf8)),
            ("MissingId", "no id", "post", nil, Array("{\"v\":1,\"ts\":1,\"text\":\"t\"}".utf8)),
            ("MissingText", "no text", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1}".utf8)),
            ("TextNotString", "text = 5", "post", nil, Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":5}".utf8)),
            ("ReplyToNotString", "reply_to = 5", "post", nil, Array("{\"v\":1,\(base),\"reply_to\":5}".utf8)),
            ("WithNotString", "with = 5", "post", nil, Array("{\"v\":1,\(base),\"with\":5}".utf8)),
            ("EditOfInPost", "posted content carries edit_of", "post", nil, Array("{\"v\":1,\(base),\"edit_of\":\"\(edited)\"}".utf8)),
            ("EditWithoutEditOf", "an edit without edit_of", "edit", edited, Array("{\"v\":1,\(base)}".utf8)),
            ("EditOfOtherMessage", "an edit whose edit_of names another message", "edit", edited,
             Array("{\"v\":1,\(base),\"edit_of\":\"\(reply)\"}".utf8)),
            ("TombstoneWithText", "a tombstone that carries text", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"gone\",\"delete_of\":\"\(edited)\"}".utf8)),
            ("DeleteOfNotUuid", "delete_of is not a lower-case UUID", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"delete_of\":\"\(edited.uppercased())\"}".utf8)),
            ("TombstoneAndAnnouncement", "delete_of and an announcement list at once", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"delete_of\":\"\(edited)\",\"added\":[\"\(reply)\"]}".utf8)),
            ("TwoAnnouncementLists", "added and declined at once", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"added\":[\"\(reply)\"],\"declined\":[]}".utf8)),
            ("AnnouncementWithText", "an announcement that carries text", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"hi\",\"approved\":[\"\(reply)\"]}".utf8)),
            ("AnnouncementNotArray", "approved is a string", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"approved\":\"\(reply)\"}".utf8)),
            ("AnnouncementRepeatsId", "the same id twice", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"added\":[\"\(reply)\",\"\(reply)\"]}".utf8)),
            ("AnnouncementUpperCaseId", "an id in upper case", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"declined\":[\"\(reply.uppercased())\"]}".utf8)),
            ("AnnouncementIdNotString", "an id that is a number", "post", nil,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"accepted\":[5]}".utf8)),
            ("AnnouncementTooLong", "1,001 ids", "post", nil,
             Array(("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"added\":["
                    + (0..<1_001).map { "\"00000000-0000-4000-8000-\(String(format: "%012d", $0))\"" }.joined(separator: ",") + "]}").utf8)),
            ("EditCarriesDeleteOf", "an edit whose payload is a tombstone", "edit", edited,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"edit_of\":\"\(edited)\",\"delete_of\":\"\(reply)\"}".utf8)),
            ("EditCarriesAnnouncement", "an edit whose payload is an announcement", "edit", edited,
             Array("{\"v\":1,\"id\":\"\(mid)\",\"ts\":1,\"text\":\"\",\"edit_of\":\"\(edited)\",\"added\":[\"\(reply)\"]}".utf8)),
            ("TooLarge", "65,537 bytes", "post", nil, head + [UInt8](repeating: 0x61, count: 65_537 - head.count - 2) + Array("\"}".utf8)),
            ("NotAnObject", "a JSON array", "post", nil, Array("[1]".utf8)),
            ("NaN", "NaN in an unknown key", "post", nil, Array("{\"v\":1,\(base),\"x\":NaN}".utf8)),
            ("TrailingData", "a second value after the object", "post", nil, Array("{\"v\":1,\(base)} {}".utf8)),
            ("InvalidJson", "a trailing comma", "post", nil, Array("{\"v\":1,\(base),}".utf8)),
        ]
        for (flag, comment, context, messageID, json) in invalid {
            file.note(flag, comment)
            let failure = try anyRefusal("payload \(flag)") {
                try check(MessagePayload(json: json), context: context, messageID: messageID)
            }
            var fields = JSONObjectBuilder()
            fields.setHex("json", json)
            fields.set("context", context)
            if let messageID { fields.set("messageId", messageID) }
            file.add(VectorTest(groupType: "PayloadTest", comment: comment, flags: [flag], fields: fields, failure: failure))
        }
        return file
    }

    /// The edit rule for the context.
    static func check(_ payload: MessagePayload, context: String, messageID: String?) throws {
        if context == "edit", let messageID {
            try payload.checkEdit(of: WireUUID(text: messageID))
        } else {
            try payload.checkPosted()
        }
    }
}
