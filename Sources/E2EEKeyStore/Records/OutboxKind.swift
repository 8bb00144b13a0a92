/// What an outbox entry does when it is sent.
public enum OutboxKind: String, Sendable, Equatable, CaseIterable {
    /// `POST …/messages`: a new message.
    case message
    /// `PATCH /channels/messages/{target}`: an edit of our own message.
    case edit
    /// `DELETE /channels/messages/{target}`: a delete of our own message.
    case delete
    /// `POST …/messages` of a control message, not in the timeline: a sender key distribution,
    /// or a link message (told apart by the entry's `content_type`).
    case skd
}
