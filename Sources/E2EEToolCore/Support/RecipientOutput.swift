import E2EEMessaging

/// What a send surfaced about recipients (docs/spec/protocol.md §5), as JSON and as text lines.
struct RecipientOutput: Encodable {
    let surfaced: [RecipientEntry]
    let held: [RecipientEntry]
    let removed: [RecipientEntry]
    let unexpectedMembers: [String]
    /// Group members listed after this device created or accepted the group, not approved.
    let heldMembers: [String]
    let recipientCount: Int
    /// Users with user-key certificates who got nothing (docs/spec/protocol.md §10): conflicted,
    /// without a verified device, or with a key change waiting.
    let unresolvedUsers: [UnresolvedEntry]
    /// The channel, for the commands the lines name.
    private let channelID: String

    init(_ changes: RecipientChanges, channelID: ChannelID) {
        surfaced = changes.surfaced.map(RecipientEntry.init)
        held = changes.held.map(RecipientEntry.init)
        removed = changes.removed.map(RecipientEntry.init)
        unexpectedMembers = changes.unexpectedMembers.map(\.rawValue)
        heldMembers = changes.heldMembers.map(\.rawValue)
        recipientCount = changes.recipientCount
        unresolvedUsers = changes.unresolvedUsers.map(UnresolvedEntry.init)
        self.channelID = channelID.rawValue
    }

    /// One line per change, held first (members, then devices).
    var lines: [String] {
        let heldIDs = Set(held.map(\.deviceID))
        return heldMembers.map { "held: member \($0) of this group gets no keys until approved (channels member approve \(channelID) \($0))" }
            + held.map { "held: device \($0.deviceID) of user \($0.userID) gets no keys until approved (devices approve \($0.deviceID))" }
            + surfaced.filter { !heldIDs.contains($0.deviceID) }.map { "new recipient: device \($0.deviceID) of user \($0.userID)" }
            + removed.map { "removed: device \($0.deviceID) of user \($0.userID) is no longer listed" }
            + unexpectedMembers.map { "WARNING: user \($0) is listed in this DM but is not a participant; it gets nothing" }
            + unresolvedUsers.map(\.line)
    }

    enum CodingKeys: String, CodingKey {
        case surfaced, held, removed, unexpectedMembers = "unexpected_members", heldMembers = "held_members"
        case recipientCount = "recipient_count", unresolvedUsers = "unresolved_users"
    }
}

/// A user a send left out because their user key is unresolved.
struct UnresolvedEntry: Encodable {
    let userID: String
    /// `conflicted`, `no_verified_device` or `change_pending`.
    let reason: String

    init(_ user: UnresolvedUser) {
        userID = user.userID.rawValue
        reason = switch user.reason {
        case .conflicted: "conflicted"
        case .noVerifiedDevice: "no_verified_device"
        case .changePending: "change_pending"
        }
    }

    /// The text line, naming what the user can do.
    var line: String {
        let why = switch reason {
        case "conflicted": "shows several user keys (compare safety numbers, then user-key pin \(userID) <fingerprint>)"
        case "change_pending": "changed their user key (compare safety numbers, then user-key accept \(userID))"
        default: "has no device certified under their user key (user-key show \(userID))"
        }
        return "unresolved: user \(userID) got nothing: they \(why)"
    }

    enum CodingKeys: String, CodingKey { case userID = "user_id", reason }
}

/// A device in recipient output.
struct RecipientEntry: Encodable {
    let userID: String
    let deviceID: String
    var channelID: String?

    init(_ device: RecipientDevice) {
        userID = device.userID.rawValue
        deviceID = device.deviceID.rawValue
    }

    init(_ held: HeldRecipient) {
        self.init(held.device)
        channelID = held.channelID.rawValue
    }

    enum CodingKeys: String, CodingKey { case userID = "user_id", deviceID = "device_id", channelID = "channel_id" }
}
