import E2EEMessaging

/// One change of who is in a channel, or of a user's devices, as `listen` prints it: a line,
/// or with `--json` one object (`{"event":"member_unexpected","channel_id":…,"user_id":…}`).
struct IdentityNotice: Encodable, Equatable {
    /// `device_identity_changed`, `device_removed`, `member_unexpected`,
    /// `member_held`, `recipient_added`, `recipient_held`, `recipient_removed`,
    /// `channel_kind_contradicted`.
    let event: String
    let channelID: String?
    let userID: String
    let deviceID: String?

    enum CodingKeys: String, CodingKey {
        case event, channelID = "channel_id", userID = "user_id", deviceID = "device_id"
    }

    init(event: String, channelID: String?, userID: String, deviceID: String?) {
        self.event = event
        self.channelID = channelID
        self.userID = userID
        self.deviceID = deviceID
    }

    /// The notice of `identity`; nil for a device pinned on first contact (``IdentityEvent/newDevice(userID:deviceID:)``:
    /// not a change of who is in a channel, and repeated once per device a conversation meets).
    init?(_ identity: IdentityEvent) {
        switch identity {
        case .newDevice:
            return nil
        case .identityChanged(let user, let device):
            self.init(event: "device_identity_changed", channelID: nil, userID: user.rawValue, deviceID: device.rawValue)
        case .deviceRemoved(let user, let device):
            self.init(event: "device_removed", channelID: nil, userID: user.rawValue, deviceID: device.rawValue)
        case .unexpectedMember(let channel, let user):
            self.init(event: "member_unexpected", channelID: channel.rawValue, userID: user.rawValue, deviceID: nil)
        case .recipientAdded(let channel, let user, let device, let held):
            self.init(event: held ? "recipient_held" : "recipient_added", channelID: channel.rawValue, userID: user.rawValue, deviceID: device.rawValue)
        case .recipientRemoved(let channel, let user, let device):
            self.init(event: "recipient_removed", channelID: channel.rawValue, userID: user.rawValue, deviceID: device.rawValue)
        case .memberHeld(let channel, let user):
            self.init(event: "member_held", channelID: channel.rawValue, userID: user.rawValue, deviceID: nil)
        case .channelKindContradicted(let channel):
            self.init(event: "channel_kind_contradicted", channelID: channel.rawValue, userID: "", deviceID: nil)
        }
    }

    /// The text line.
    func line() -> String {
        let device = deviceID.map { " device \($0)" } ?? ""
        let channel = channelID.map { " in channel \($0)" } ?? ""
        let what = switch event {
        case "device_identity_changed": "WARNING: identity changed for user \(userID)\(device) (not trusted until accepted)"
        case "device_removed": "device removed: user \(userID)\(device)"
        case "member_unexpected": "unexpected member: user \(userID)\(channel) (gets no keys)"
        case "member_held": "new member held: user \(userID)\(channel) gets no keys until approved"
        case "channel_kind_contradicted": "WARNING: the server named channel \(channelID ?? "?") with another kind; the pinned kind stays"
        case "recipient_added": "new recipient: user \(userID)\(device)\(channel)"
        case "recipient_held": "held: user \(userID)\(device)\(channel) gets no keys until approved"
        case "recipient_removed": "left: user \(userID)\(device)\(channel)"
        default: "\(event): user \(userID)\(device)\(channel)"
        }
        return "* " + what
    }
}
