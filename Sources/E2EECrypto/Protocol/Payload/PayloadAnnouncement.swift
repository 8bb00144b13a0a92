/// A signed group announcement (docs/spec/protocol.md §5.15): a payload with empty text and
/// one list of lower-case UUIDs saying what its sender decided in the channel. From another
/// user it only prompts the app; from one of the reader's own trusted devices it counts as the
/// reader's own decision. Never shown as a message, never edited.
public struct PayloadAnnouncement: Sendable, Equatable, Hashable {
    /// What the sender decided; the JSON member name is the raw value.
    public enum Kind: String, Sendable, Equatable, Hashable, CaseIterable {
        /// Users the sender added to the group (adding is approving).
        case added
        /// Users (members) or devices the sender approved.
        case approved
        /// Users (members) or devices the sender declined.
        case declined
        /// The sender accepted the group's request with these members.
        case accepted
    }

    /// What was decided.
    public let kind: Kind
    /// Whom it names: distinct user or device ids, at most ``ProtocolLimits/maxAnnouncementIDs``.
    public let ids: [WireUUID]

    /// Creates an announcement.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for repeated ids or more than ``ProtocolLimits/maxAnnouncementIDs``.
    public init(kind: Kind, ids: [WireUUID]) throws {
        guard ids.count <= ProtocolLimits.maxAnnouncementIDs else { throw ProtocolError.malformed(.payload, reason: "announcement lists too many ids") }
        guard Set(ids).count == ids.count else { throw ProtocolError.malformed(.payload, reason: "announcement repeats an id") }
        self.kind = kind
        self.ids = ids
    }
}
