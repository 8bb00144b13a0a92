/// A message's decrypted payload (docs/spec/protocol.md §6):
/// `{"v":1,"id":"<client message id>","ts":<sender unix ms>,"text":"…"}` plus optional
/// `"edit_of"` and `"reply_to"` (server message ids) and, in a DM, `"with"` (the user id of the
/// DM's other participant, as the sender fixed it). Unknown keys are ignored on input.
///
/// The text is plaintext: the description never shows it.
public struct MessagePayload: Sendable, Equatable, CustomStringConvertible {
    /// The only payload version.
    public static let version = 1
    /// The largest `ts`: 2^53 − 1, exact in every JSON implementation.
    public static let maxTimestamp: Int64 = (1 << 53) - 1

    /// The client message id (dedupe by sender user and id).
    public let id: WireUUID
    /// The sender's clock, unix milliseconds, in 0…2^53−1.
    public let timestamp: Int64
    /// The message text.
    public let text: String
    /// For an edit: the server id of the message it replaces (its own message id).
    public let editOf: WireUUID?
    /// The server id of the message this one answers (authoritative over the server's field).
    public let replyTo: WireUUID?
    /// In a DM: the other participant's user id as the sender fixed it (`"with"`), so the
    /// sender's own other devices fix the DM's participants from an authenticated message.
    public let with: WireUUID?

    /// Creates a payload.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for a timestamp outside 0…2^53−1.
    public init(id: WireUUID, timestamp: Int64, text: String, editOf: WireUUID? = nil, replyTo: WireUUID? = nil,
                with: WireUUID? = nil) throws {
        guard (0...Self.maxTimestamp).contains(timestamp) else { throw ProtocolError.malformed(.payload, reason: "ts out of range") }
        self.id = id
        self.timestamp = timestamp
        self.text = text
        self.editOf = editOf
        self.replyTo = replyTo
        self.with = with
    }

    /// Checks content posted as a new message: it must not carry `edit_of`.
    /// - Throws: ``ProtocolError/editMismatch``.
    public func checkPosted() throws {
        guard editOf == nil else { throw ProtocolError.editMismatch }
    }

    /// Checks content that replaced message `messageID` by `PATCH`: `edit_of` must name it.
    /// - Throws: ``ProtocolError/editMismatch``.
    public func checkEdit(of messageID: WireUUID) throws {
        guard editOf == messageID else { throw ProtocolError.editMismatch }
    }

    /// Never shows the text.
    public var description: String {
        "MessagePayload(id: \(id), ts: \(timestamp), text: <redacted \(text.utf8.count) bytes>, editOf: \(editOf.map(\.text) ?? "nil"), replyTo: \(replyTo.map(\.text) ?? "nil"), with: \(with.map(\.text) ?? "nil"))"
    }
}
