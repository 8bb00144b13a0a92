import E2EECrypto
import E2EEKeyStore

/// What an outbox entry is for, as the app tells its delivery events apart
/// (``DeliveryChange/purpose``): only ``message`` entries are messages the app sent with
/// ``Account/send(text:to:replyTo:)`` — a local echo in the timeline until posted, then its row.
/// The others go out on the account's own behalf or as a step of one of the app's calls; the
/// app may ignore their delivery events, or show them as such.
public enum OutboxPurpose: Sendable, Equatable, CaseIterable {
    /// A message the app sent (``Account/send(text:to:replyTo:)``): shown in the timeline.
    case message
    /// An edit of one of our messages (``Account/edit(_:text:)``).
    case edit
    /// The encrypted notice that deletes one of our messages for everyone
    /// (``Account/delete(_:)``, docs/spec/protocol.md §6.7).
    case tombstone
    /// The `DELETE` of the server's copy of one of our messages (queued behind its tombstone, or
    /// alone for a message without a readable payload).
    case serverDelete
    /// A sender key distribution: our group key sent to the devices that lack it (queued by a
    /// group send or a key renewal).
    case senderKeyDistribution
    /// A signed group announcement (docs/spec/protocol.md §5.15): a decision about a member
    /// or device (``Account/approveMember(_:in:)`` and the like).
    case announcement
    /// A link message to another device of our own user (docs/spec/protocol.md §10.22): a
    /// step of linking a device.
    case link
}

extension OutboxMessage {
    /// What the entry is for; a `.message` entry is told apart by its payload (a tombstone or an
    /// announcement is posted like a message).
    var purpose: OutboxPurpose {
        switch kind {
        case .edit: return .edit
        case .delete: return .serverDelete
        case .skd: return contentType == LinkEnvelope.contentType ? .link : .senderKeyDistribution
        case .message:
            guard let payload = try? MessagePayload(json: plaintext) else { return .message }
            if payload.deleteOf != nil { return .tombstone }
            return payload.announcement != nil ? .announcement : .message
        }
    }
}
