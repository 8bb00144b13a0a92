import E2EEMessaging

/// What a send surfaced about recipients (docs/spec/protocol.md §5), as JSON and as text lines.
struct RecipientOutput: Encodable {
    let surfaced: [RecipientEntry]
    let held: [RecipientEntry]
    let removed: [RecipientEntry]
    let unexpectedMembers: [String]
    let recipientCount: Int

    init(_ changes: RecipientChanges) {
        surfaced = changes.surfaced.map(RecipientEntry.init)
        held = changes.held.map(RecipientEntry.init)
        removed = changes.removed.map(RecipientEntry.init)
        unexpectedMembers = changes.unexpectedMembers.map(\.rawValue)
        recipientCount = changes.recipientCount
    }

    /// One line per change, held first.
    var lines: [String] {
        let heldIDs = Set(held.map(\.deviceID))
        return held.map { "held: device \($0.deviceID) of user \($0.userID) gets no keys until approved (devices approve \($0.deviceID))" }
            + surfaced.filter { !heldIDs.contains($0.deviceID) }.map { "new recipient: device \($0.deviceID) of user \($0.userID)" }
            + removed.map { "removed: device \($0.deviceID) of user \($0.userID) is no longer listed" }
            + unexpectedMembers.map { "WARNING: user \($0) is listed in this DM but is not a participant; it gets nothing" }
    }

    enum CodingKeys: String, CodingKey {
        case surfaced, held, removed, unexpectedMembers = "unexpected_members", recipientCount = "recipient_count"
    }
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
