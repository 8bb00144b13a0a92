/// A signed announcement read in a group (docs/spec/protocol.md §5.15): what a member decided
/// about the group's members or devices. Another user's announcement is a prompt for the app
/// ("alice added carol: approve?"), never a decision: nobody gets keys until this device
/// approves them. One from a trusted device of this account was applied here as this device's
/// own decision (``appliedHere``). Announcements are never timeline messages.
public struct ChannelAnnouncement: Sendable, Equatable {
    /// What was decided.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The sender added these users to the group.
        case added
        /// The sender approved these users (members) or devices.
        case approved
        /// The sender declined these users (members) or devices.
        case declined
        /// The sender accepted the group, with these members.
        case accepted
    }

    /// One party an announcement names.
    public enum Party: Sendable, Hashable {
        /// A user (a member added, approved, declined or accepted with the group).
        case user(UserID)
        /// A device this device has a standing for in some channel (approved or declined).
        case device(DeviceID)

        /// The id as the announcement carried it.
        public var rawValue: String {
            switch self {
            case .user(let id): id.rawValue
            case .device(let id): id.rawValue
            }
        }
    }

    /// The group.
    public var channelID: ChannelID
    /// The server id of the announcement's message.
    public var messageID: MessageID
    /// Who announced it.
    public var senderUserID: UserID
    /// The device it came from.
    public var senderDeviceID: DeviceID
    /// What was decided.
    public var kind: Kind
    /// The users or devices it names, in its order. An `approved` or `declined` id is a device
    /// when this device has a standing for that device in some channel, otherwise a user; `added`
    /// and `accepted` name users.
    public var named: [Party]
    /// Whether it came from a trusted device of this account and was applied here.
    public var appliedHere: Bool

    /// Creates the value.
    public init(channelID: ChannelID, messageID: MessageID, senderUserID: UserID, senderDeviceID: DeviceID, kind: Kind, named: [Party],
                appliedHere: Bool) {
        self.channelID = channelID
        self.messageID = messageID
        self.senderUserID = senderUserID
        self.senderDeviceID = senderDeviceID
        self.kind = kind
        self.named = named
        self.appliedHere = appliedHere
    }
}
