/// This device's standing in a channel (schema `v11`).
package enum ChannelStanding: String, Sendable, Equatable, CaseIterable {
    /// Created or opened on this device: its own decision.
    case created
    /// Learned from the server and not accepted yet: nothing is sent in it.
    case request
    /// Accepted by the app on this device (or on a trusted own device).
    case accepted
    /// Declined by the app: nothing is sent in it.
    case declined

    /// Whether this device sends in the channel.
    public var isOpen: Bool { self == .created || self == .accepted }
}

/// A channel's kind as this device pinned it when it first learned the channel, and its
/// standing there. The pin outlives the channel's row: a later listing never changes it.
package struct ChannelPin: Sendable, Equatable {
    /// The channel.
    public var channelID: String
    /// Whether it is a DM (`x3dh`), else a group (`sender_keys`).
    public var isDM: Bool
    /// This device's standing.
    public var standing: ChannelStanding
    /// When it was pinned.
    public var pinnedAt: StoreTime
    /// When a listing first contradicted the kind (`nil`: never).
    public var contradictedAt: StoreTime?

    /// Creates the value.
    public init(channelID: String, isDM: Bool, standing: ChannelStanding, pinnedAt: StoreTime, contradictedAt: StoreTime? = nil) {
        self.channelID = channelID
        self.isDM = isDM
        self.standing = standing
        self.pinnedAt = pinnedAt
        self.contradictedAt = contradictedAt
    }

    /// The encryption type the kind implies: `x3dh` for DMs, `sender_keys` for groups.
    public var encryptionType: String { isDM ? "x3dh" : "sender_keys" }
}

/// Where a user stands as a member of one group, as decided on this device.
package enum MemberState: String, Sendable, Equatable, CaseIterable {
    /// Approved: at creation, acceptance, by adding it, or one by one.
    case approved
    /// Listed after creation or acceptance and not approved yet: gets nothing.
    case held
    /// Declined by the app: gets nothing until approved.
    case declined
    /// Was approved and has been absent from two reads at least 2 s apart: coming back is new.
    case gone
}

/// One user's standing as a member of one group.
package struct MemberStanding: Sendable, Equatable, Hashable {
    /// The channel.
    public var channelID: String
    /// The user.
    public var userID: String
    /// The standing.
    public var state: MemberState
    /// When an approved member was first read as absent (`nil`: listed at the last read).
    public var missingSince: StoreTime?

    /// Creates the value.
    public init(channelID: String, userID: String, state: MemberState, missingSince: StoreTime? = nil) {
        self.channelID = channelID
        self.userID = userID
        self.state = state
        self.missingSince = missingSince
    }
}
