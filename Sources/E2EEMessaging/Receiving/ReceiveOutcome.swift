/// What the receive pipeline did with one message or edit: exactly one outcome each. Not API:
/// an app learns what arrived from events and the timeline; the tests and the ingest benchmark
/// read outcomes.
@_spi(Benchmarks) public struct ReceiveOutcome: Sendable, Equatable {
    /// The outcome.
    public enum Result: Sendable, Equatable {
        /// Decrypted and stored (a new message, or a pending one now readable).
        case decrypted
        /// A sender key distribution was applied (a control message, not in the timeline).
        case keyDistribution
        /// A link message from one of our own devices was opened (a control message in a link
        /// channel, not in the timeline; docs/spec/protocol.md §10.22).
        case linkMessage
        /// Waiting for a key, stored in the pending queue; `waitingFor` names it.
        case pending(waitingFor: String)
        /// Refused for a public reason and stored as undecryptable.
        case undecryptable(UndecryptableReason)
        /// `protocol_version` 1 plaintext from another client: stored flagged unencrypted.
        case unencrypted
        /// `protocol_version` 2 content that is not our envelope: stored as unsupported format.
        case unsupportedFormat
        /// Already stored: under the same server id (`of` nil) or as the first copy `of` (same
        /// envelope bytes, or a used (sender user, payload id)); shown once.
        case duplicate(of: String?)
        /// Our own device's message: handed to the outbox, which settles its entry.
        case own
        /// An edit from the original sender replaced the text.
        case edited
        /// An edit was refused and recorded; the message stays as it was.
        case editRefused(UndecryptableReason)
        /// Nothing to do (an edit or delete of a message that is not ours to change, or unknown).
        case ignored
        /// Not stored: the input did not belong where it was delivered.
        case refused(UndecryptableReason)
    }

    /// The server message id.
    public let messageID: MessageID
    /// What happened.
    public let result: Result

    /// Creates the value.
    public init(messageID: MessageID, result: Result) {
        self.messageID = messageID
        self.result = result
    }
}
