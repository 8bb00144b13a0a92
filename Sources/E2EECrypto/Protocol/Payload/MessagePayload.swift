/// A message's decrypted payload (docs/spec/protocol.md §6):
/// `{"v":1,"id":"<client message id>","ts":<sender unix ms>,"text":"…"}` plus optional
/// `"edit_of"` and `"reply_to"` (server message ids), in a DM `"with"` (the user id of the
/// DM's other participant, as the sender fixed it), and for control payloads with empty text
/// either `"delete_of"` (a tombstone, §6.7) or one announcement list (§5.15). Unknown keys are
/// ignored on input.
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
    /// For a tombstone: the payload id (``id``) of the sender's message it deletes (§6.7).
    public let deleteOf: WireUUID?
    /// For an announcement: what the sender decided in the group (§5.15).
    public let announcement: PayloadAnnouncement?

    /// Creates a payload.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for a timestamp outside 0…2^53−1, or a
    ///   tombstone or announcement that carries text, the other one, or `edit_of`.
    public init(id: WireUUID, timestamp: Int64, text: String, editOf: WireUUID? = nil, replyTo: WireUUID? = nil,
                with: WireUUID? = nil, deleteOf: WireUUID? = nil, announcement: PayloadAnnouncement? = nil) throws {
        guard (0...Self.maxTimestamp).contains(timestamp) else { throw ProtocolError.malformed(.payload, reason: "ts out of range") }
        if deleteOf != nil || announcement != nil {
            guard deleteOf == nil || announcement == nil else { throw ProtocolError.malformed(.payload, reason: "tombstone and announcement at once") }
            guard text.isEmpty else { throw ProtocolError.malformed(.payload, reason: "control payload with text") }
            guard editOf == nil else { throw ProtocolError.malformed(.payload, reason: "control payload with edit_of") }
        }
        self.id = id
        self.timestamp = timestamp
        self.text = text
        self.editOf = editOf
        self.replyTo = replyTo
        self.with = with
        self.deleteOf = deleteOf
        self.announcement = announcement
    }

    /// Whether this is a control payload (a tombstone or an announcement): never shown as a
    /// message, never sent or accepted as an edit.
    public var isControl: Bool { deleteOf != nil || announcement != nil }

    /// Checks content posted as a new message: it must not carry `edit_of`.
    /// - Throws: ``ProtocolError/editMismatch``.
    public func checkPosted() throws {
        guard editOf == nil else { throw ProtocolError.editMismatch }
    }

    /// Checks content that replaced message `messageID` by `PATCH`: `edit_of` must name it,
    /// and it must not be a tombstone or an announcement (those are only ever posted).
    /// - Throws: ``ProtocolError/editMismatch``.
    public func checkEdit(of messageID: WireUUID) throws {
        guard editOf == messageID, !isControl else { throw ProtocolError.editMismatch }
    }

    /// Never shows the text.
    public var description: String {
        "MessagePayload(id: \(id), ts: \(timestamp), text: <redacted \(text.utf8.count) bytes>, editOf: \(editOf.map(\.text) ?? "nil"), replyTo: \(replyTo.map(\.text) ?? "nil"), with: \(with.map(\.text) ?? "nil"), deleteOf: \(deleteOf.map(\.text) ?? "nil"), announcement: \(announcement.map { "\($0.kind.rawValue)×\($0.ids.count)" } ?? "nil"))"
    }
}
