import E2EEMessaging

/// One timeline message as `history` and `listen` print it: a JSON object (snake_case keys)
/// or one text line. Texts are the user's own data on the user's own terminal; they never go
/// to the log.
struct MessageOutput: Encodable, Equatable {
    /// What happened (`listen` only): `message`, `edited`, `deleted`, `pending`, `undecryptable`,
    /// `sent_before_this_device`, `sent_before_approval`, `removed_from_server`, `back_on_server`.
    let event: String?
    let channelID: String
    let messageID: String
    let createdAt: String
    let senderUserID: String?
    let senderDeviceID: String?
    /// `decrypted`, `pending`, `undecryptable`, `sent_before_this_device`, `sent_before_approval`, `unsupported_format`,
    /// `unencrypted`, `deleted`.
    let state: String
    /// Why it cannot be read (undecryptable states only).
    let reason: String?
    let text: String?
    let replyTo: String?
    let editedAt: String?
    /// Sent by this device.
    let own: Bool
    /// The delivery state of a message this device sent (`sent`, `delivered`; `queued`,
    /// `sending` or `failed` while not posted).
    let delivery: String?
    /// Sent by this device and not posted yet (a local echo from the outbox): `message_id` is
    /// then its outbox id.
    let notSent: Bool
    /// The server no longer has it (its text is kept: only the sender deletes).
    let removedFromServer: Bool
    /// Its sender is a member or device held or declined here (docs/spec/protocol.md §5.11–§5.12).
    let flagged: Bool

    enum CodingKeys: String, CodingKey {
        case event, channelID = "channel_id", messageID = "message_id", createdAt = "created_at"
        case senderUserID = "sender_user_id", senderDeviceID = "sender_device_id", state, reason, text
        case replyTo = "reply_to", editedAt = "edited_at", own, delivery, notSent = "not_sent", removedFromServer = "removed_from_server", flagged
    }

    init(_ item: TimelineItem, event: String? = nil) {
        // History from before this device is no error, whatever the receive event called it.
        self.event = switch item.state {
        case .sentBeforeThisDevice where event == "undecryptable" || event == "pending": "sent_before_this_device"
        case .sentBeforeApproval where event == "undecryptable": "sent_before_approval"
        default: event
        }
        channelID = item.channelID.rawValue
        messageID = item.messageID.rawValue
        createdAt = item.createdAt.restText
        senderUserID = item.senderUserID?.rawValue
        senderDeviceID = item.senderDeviceID?.rawValue
        own = item.isOwn
        delivery = item.delivery?.rawValue
        notSent = item.isLocalEcho
        removedFromServer = item.removedFromServer
        flagged = item.senderHeld
        text = item.text
        replyTo = item.replyTo?.rawValue
        editedAt = item.editedAt?.restText
        switch item.state {
        case .decrypted: (state, reason) = ("decrypted", nil)
        case .pending: (state, reason) = ("pending", item.waitsForAcceptance ? "waiting_for_acceptance" : nil)
        case .undecryptable(let why): (state, reason) = ("undecryptable", why.rawValue)
        case .sentBeforeThisDevice: (state, reason) = ("sent_before_this_device", nil)
        case .sentBeforeApproval: (state, reason) = ("sent_before_approval", nil)
        case .unsupportedFormat: (state, reason) = ("unsupported_format", UndecryptableReason.unsupportedFormat.rawValue)
        case .unencrypted: (state, reason) = ("unencrypted", nil)
        case .deleted: (state, reason) = ("deleted", nil)
        }
    }

    /// Whether the message can be read (decrypted, or plaintext from another client).
    var isReadable: Bool { state == "decrypted" || state == "unencrypted" }

    /// `<time>  [<channel>  ]<user>/<device>  [edited:  ]<text or marker>  [markers]`, on one
    /// line (line breaks in the text are shown as `\n`, a backslash as `\\`).
    func line(showingChannel: Bool) -> String {
        var parts = [createdAt]
        if showingChannel { parts.append(channelID) }
        parts.append((senderUserID ?? "?") + "/" + (senderDeviceID ?? "?") + (own ? " (this device)" : "")
                     + (flagged ? " [held sender: not approved here]" : ""))
        if event == "edited" { parts.append("edited:") }
        switch state {
        case "decrypted", "unencrypted":
            var body = Self.oneLine(text ?? "")
            if state == "unencrypted" { body += "  [unencrypted: sent in plaintext by another client]" }
            if editedAt != nil { body += "  [edited]" }
            parts.append(body)
        case "pending" where reason == "waiting_for_acceptance":
            parts.append("[waiting for acceptance: a request; read it with channels accept \(channelID)]")
        case "pending": parts.append("[pending: waiting for a key]")
        case "deleted": parts.append("[deleted]")
        case "sent_before_this_device": parts.append("[sent before this device was added]")
        case "sent_before_approval": parts.append("[sent before its sender approved this device]")
        case "undecryptable" where reason == "sent_after_leaving":
            parts.append("[not a recipient: sent after this device left the channel]")
        default: parts.append("[undecryptable: \(reason ?? "other")]")
        }
        if notSent { parts.append("[not sent yet: \(delivery ?? "queued")]") }
        if removedFromServer { parts.append("[removed from the server]") }
        return parts.joined(separator: "  ")
    }

    /// `text` with line breaks and other control characters escaped.
    static func oneLine(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            default:
                if scalar.properties.generalCategory == .control {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
