/// Reads a `GET /channels/{id}/messages` body straight from its bytes into a ``MessagePage``, in
/// one pass, for the shape servers send: an object with `messages` (message objects whose values
/// are strings without escapes, integers or `null`; values under other keys are skipped) and
/// `has_more`. Anything else — an escape, a byte outside ASCII inside a string, a value nested
/// deeper than ``maxSkippedDepth``, a field of the page or of a message given twice, a required
/// field missing or `null`, a malformed timestamp, bytes that are not JSON — makes it answer nil, and the caller decodes the body with `JSONDecoder` instead
/// (``ServerJSON/decodePage(_:)``), which then accepts it or says why not. So the scanner never
/// decides that a body is bad, and what it accepts it reads as `JSONDecoder` reads it (ids
/// normalised by ``Identifier``, times parsed by ``ServerTimestamp``): `MessagePageScannerTests`
/// compares both on pages of every shape, and truncated at every byte.
///
/// Why: a catch-up decodes every page it reads, and `JSONDecoder` builds a tree of the body and
/// decodes each field through `Codable`'s containers first (issue 47, decision 3: bytes in).
enum MessagePageScanner {
    /// How deep a skipped value may nest before the body is left to JSONDecoder.
    static let maxSkippedDepth = 16

    /// The page `bytes` hold, or nil when they are not of the simple shape (see the type).
    static func scan(_ bytes: [UInt8]) -> MessagePage? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer)
            guard let page = cursor.page(), cursor.atEnd() else { return nil }
            return page
        }
    }

    /// A position in the body; every read checks the bounds.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// `{"messages": [...], "has_more": bool}`, keys in any order, other keys' values skipped.
        mutating func page() -> MessagePage? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var messages: [ServerMessage]?
            var hasMore: Bool?
            if take(UInt8(ascii: "}")) { return nil }
            repeat {
                guard let key = key() else { return nil }
                if Self.equal(key, "messages") {
                    guard messages == nil, let read = messageArray() else { return nil }
                    messages = read
                } else if Self.equal(key, "has_more") {
                    guard hasMore == nil, let read = bool() else { return nil }
                    hasMore = read
                } else {
                    guard skipValue() else { return nil }
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), let messages, let hasMore else { return nil }
            return MessagePage(messages: messages, hasMore: hasMore)
        }

        /// Only whitespace is left.
        mutating func atEnd() -> Bool {
            skipWhitespace()
            return position == bytes.count
        }

        private mutating func messageArray() -> [ServerMessage]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var messages: [ServerMessage] = []
            if take(UInt8(ascii: "]")) { return messages }
            repeat {
                guard let message = message() else { return nil }
                messages.append(message)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? messages : nil
        }

        /// One message object. Optional fields may be absent or `null`; required ones may not.
        private mutating func message() -> ServerMessage? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var fields = Fields()
            if take(UInt8(ascii: "}")) { return nil }
            repeat {
                guard let key = key(), fields.read(key, from: &self) else { return nil }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
            return fields.message()
        }

        /// The fields of one message as read so far; a field given twice fails the read.
        private struct Fields {
            var id: String?, channelID: String?, senderID: String??, senderDeviceID: String??, content: String?
            var contentType: String??, protocolVersion: Int??, replyToID: String??, editedAt: String??, createdAt: String?

            /// Reads `key`'s value; false when it is not of the shape the scanner takes.
            mutating func read(_ key: UnsafeBufferPointer<UInt8>, from cursor: inout Cursor) -> Bool {
                func once<Value>(_ slot: inout Value?, _ value: Value?) -> Bool {
                    guard slot == nil, let value else { return false }
                    slot = value
                    return true
                }
                if Cursor.equal(key, "id") { return once(&id, cursor.string()) }
                if Cursor.equal(key, "channel_id") { return once(&channelID, cursor.string()) }
                if Cursor.equal(key, "sender_id") { return once(&senderID, cursor.optionalString()) }
                if Cursor.equal(key, "sender_device_id") { return once(&senderDeviceID, cursor.optionalString()) }
                if Cursor.equal(key, "content") { return once(&content, cursor.string()) }
                if Cursor.equal(key, "content_type") { return once(&contentType, cursor.optionalString()) }
                if Cursor.equal(key, "protocol_version") { return once(&protocolVersion, cursor.optionalInteger()) }
                if Cursor.equal(key, "reply_to_id") { return once(&replyToID, cursor.optionalString()) }
                if Cursor.equal(key, "edited_at") { return once(&editedAt, cursor.optionalString()) }
                if Cursor.equal(key, "created_at") { return once(&createdAt, cursor.string()) }
                return cursor.skipValue()
            }

            /// The message, when every required field is there and every time parses.
            func message() -> ServerMessage? {
                guard let id, let channelID, let content, let createdAt, let created = ServerTimestamp(parsing: createdAt) else { return nil }
                var edited: ServerTimestamp?
                if let editedAt = editedAt ?? nil {
                    guard let parsed = ServerTimestamp(parsing: editedAt) else { return nil }
                    edited = parsed
                }
                return ServerMessage(id: MessageID(id), channelID: ChannelID(channelID), senderID: (senderID ?? nil).map { UserID($0) },
                                     senderDeviceID: (senderDeviceID ?? nil).map { DeviceID($0) }, content: content,
                                     contentType: contentType ?? nil, protocolVersion: protocolVersion ?? nil,
                                     replyToID: (replyToID ?? nil).map { MessageID($0) }, editedAt: edited, createdAt: created)
            }
        }

        /// A key and its colon: the key's bytes (no escapes).
        private mutating func key() -> UnsafeBufferPointer<UInt8>? {
            guard let key = stringBytes(), take(UInt8(ascii: ":")) else { return nil }
            return key
        }

        /// A string of printable ASCII without escapes, as its bytes.
        private mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    position += 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)])
                }
                // An escape, a control character or a byte outside ASCII: JSONDecoder's to read.
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            return nil
        }

        private mutating func string() -> String? {
            stringBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        /// A string or `null` (`.some(nil)`); nil when neither.
        private mutating func optionalString() -> String?? {
            if takeLiteral("null") { return .some(nil) }
            return string().map { .some($0) }
        }

        /// An integer (a JSON number without fraction or exponent, at most 18 digits) or `null`;
        /// nil when neither — another number is JSONDecoder's to judge.
        private mutating func optionalInteger() -> Int?? {
            if takeLiteral("null") { return .some(nil) }
            skipWhitespace()
            let start = position
            guard skipNumber() else { return nil }
            let number = bytes[start..<position]
            let negative = number.first == UInt8(ascii: "-")
            let digits = negative ? number.dropFirst() : number
            guard digits.count <= 18, digits.allSatisfy(Self.isDigit) else { return nil }
            let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            return .some(negative ? -value : value)
        }

        private mutating func bool() -> Bool? {
            if takeLiteral("true") { return true }
            if takeLiteral("false") { return false }
            return nil
        }

        /// Skips a value the page does not need (the server's `reply_to`, `attachments`, …): a
        /// string, a number, `true`, `false`, `null`, or an array or object of those, at most
        /// ``maxSkippedDepth`` deep.
        private mutating func skipValue(depth: Int = 0) -> Bool {
            if takeLiteral("null") || takeLiteral("true") || takeLiteral("false") { return true }
            guard depth < MessagePageScanner.maxSkippedDepth else { return false }
            if take(UInt8(ascii: "[")) {
                if take(UInt8(ascii: "]")) { return true }
                repeat {
                    guard skipValue(depth: depth + 1) else { return false }
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]"))
            }
            if take(UInt8(ascii: "{")) {
                if take(UInt8(ascii: "}")) { return true }
                repeat {
                    guard key() != nil, skipValue(depth: depth + 1) else { return false }
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "}"))
            }
            guard position < bytes.count else { return false }
            if bytes[position] == UInt8(ascii: "\"") { return stringBytes() != nil }
            return skipNumber()
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        private mutating func skipNumber() -> Bool {
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let start = position
            guard skipDigits() > 0, position - start == 1 || bytes[start] != UInt8(ascii: "0") else { return false }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard skipDigits() > 0 else { return false }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard skipDigits() > 0 else { return false }
            }
            return true
        }

        private mutating func skipDigits() -> Int {
            let start = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            return position - start
        }

        private static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        /// Skips whitespace, then `byte` if it is next.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Skips whitespace, then `literal` if it is next.
        private mutating func takeLiteral(_ literal: StaticString) -> Bool {
            skipWhitespace()
            let end = position + literal.utf8CodeUnitCount
            guard end <= bytes.count, Self.equal(UnsafeBufferPointer(rebasing: bytes[position..<end]), literal) else { return false }
            position = end
            return true
        }

        private mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return
                }
            }
        }

        /// Whether `key` holds exactly the bytes of `name`.
        static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            guard key.count == name.utf8CodeUnitCount else { return false }
            for offset in 0..<key.count where key[offset] != name.utf8Start[offset] { return false }
            return true
        }
    }
}
