extension MessagePayload {
    /// Parses payload bytes strictly (§6): at most ``ProtocolLimits/maxPayloadBytes`` (checked
    /// first), valid UTF-8 without a byte-order mark, one JSON object without duplicate keys at
    /// any depth or lone surrogates; `v` the integer 1 and `ts` an integer in 0…2^53−1 (no
    /// fraction or exponent; `-0` is 0); `id` a lower-case UUID; `text` a string; `edit_of`,
    /// `reply_to`, `with` and `delete_of`, when present, lower-case UUID strings; at most one of
    /// `added`, `approved`, `declined`, `accepted`, an array of distinct lower-case UUID strings
    /// (at most ``ProtocolLimits/maxAnnouncementIDs``); a tombstone or an announcement has empty
    /// text and is not both. Unknown keys are ignored.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` or ``ProtocolError/malformed(_:reason:)``
    ///   at ``WireLocation/payload``; reasons never quote the content.
    public init(json bytes: some ByteView) throws {
        let count = bytes.withByteView { $0.count }
        guard count <= ProtocolLimits.maxPayloadBytes else {
            throw ProtocolError.limitExceeded(.payload, limit: ProtocolLimits.maxPayloadBytes, actual: count)
        }
        var copy = bytes.withByteView { Array($0) }
        defer { secureWipe(&copy) }
        let value = try StrictJSONParser.parse(copy)
        guard case .object = value else { throw Self.fail("not a JSON object") }
        guard let version = value["v"] else { throw Self.fail("missing v") }
        guard try Self.integer(version, field: "v") == Int64(Self.version) else { throw Self.fail("unsupported v") }
        guard let timestamp = value["ts"] else { throw Self.fail("missing ts") }
        let ts = try Self.integer(timestamp, field: "ts")
        guard case .string(let text)? = value["text"] else { throw Self.fail("missing or non-string text") }
        guard let id = try Self.uuid(value["id"], field: "id") else { throw Self.fail("missing id") }
        try self.init(
            id: id, timestamp: ts, text: text,
            editOf: Self.uuid(value["edit_of"], field: "edit_of"),
            replyTo: Self.uuid(value["reply_to"], field: "reply_to"),
            with: Self.uuid(value["with"], field: "with"),
            deleteOf: Self.uuid(value["delete_of"], field: "delete_of"),
            announcement: Self.announcement(in: value)
        )
    }

    /// The canonical JSON encoding: keys in the order `v, id, ts, text, edit_of, reply_to, with,
    /// delete_of` then the announcement list, no
    /// whitespace, only `"`, `\` and control characters escaped. Secret: it is the plaintext.
    public func encodedJSON() -> SecretBytes {
        var out: [UInt8] = []
        // Room for the worst case (every byte escaped as \u00XX) so the buffer never
        // reallocates and leaves an unwiped copy of the text behind.
        out.reserveCapacity(text.utf8.count * 6 + 200)
        out += Array("{\"v\":\(Self.version),\"id\":\"\(id.text)\",\"ts\":\(timestamp),\"text\":".utf8)
        Self.appendString(text, to: &out)
        if let editOf { out += Array(",\"edit_of\":\"\(editOf.text)\"".utf8) }
        if let replyTo { out += Array(",\"reply_to\":\"\(replyTo.text)\"".utf8) }
        if let with { out += Array(",\"with\":\"\(with.text)\"".utf8) }
        if let deleteOf { out += Array(",\"delete_of\":\"\(deleteOf.text)\"".utf8) }
        if let announcement {
            out += Array(",\"\(announcement.kind.rawValue)\":[".utf8)
            out += Array(announcement.ids.map { "\"\($0.text)\"" }.joined(separator: ",").utf8)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return SecretBytes(consuming: &out)
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func fail(_ reason: String) -> ProtocolError { .malformed(.payload, reason: reason) }

    /// A JSON integer without fraction or exponent, in 0…2^53−1 (`-0` is 0).
    private static func integer(_ value: StrictJSON, field: String) throws -> Int64 {
        guard case .number(let text) = value else { throw fail("\(field) is not a number") }
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" {
            negative = true
            digits = digits.dropFirst()
        }
        // Over the UTF-8 bytes, not the characters (no grapheme breaking): only ASCII digits pass.
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw fail("\(field) is not an integer")
        }
        guard digits.utf8.count <= 16, let magnitude = Int64(digits), magnitude <= maxTimestamp else { throw fail("\(field) out of range") }
        guard !negative || magnitude == 0 else { throw fail("\(field) out of range") }
        return magnitude
    }

    /// The one announcement list of `object`, if any.
    private static func announcement(in object: StrictJSON) throws -> PayloadAnnouncement? {
        var found: PayloadAnnouncement?
        for kind in PayloadAnnouncement.Kind.allCases {
            guard let value = object[kind.rawValue] else { continue }
            guard found == nil else { throw fail("more than one announcement list") }
            guard case .array(let elements) = value else { throw fail("\(kind.rawValue) is not an array") }
            guard elements.count <= ProtocolLimits.maxAnnouncementIDs else { throw fail("\(kind.rawValue) lists too many ids") }
            found = try PayloadAnnouncement(kind: kind, ids: elements.map { element in
                guard let id = try uuid(element, field: kind.rawValue) else { throw fail("\(kind.rawValue) is not a list of ids") }
                return id
            })
        }
        return found
    }

    private static func uuid(_ value: StrictJSON?, field: String) throws -> WireUUID? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw fail("\(field) is not a string") }
        do { return try WireUUID(text: text) } catch { throw fail("\(field) is not a lower-case UUID") }
    }
}
