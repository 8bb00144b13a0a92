import E2EEMessaging
import Foundation

/// One change of who is in a channel, or of a user's devices, as `listen` prints it: a line,
/// or with `--json` one object (`{"event":"member_unexpected","channel_id":…,"user_id":…}`).
struct IdentityNotice: Encodable, Equatable {
    /// `device_identity_changed`, `device_removed`, `member_unexpected`,
    /// `member_held`, `recipient_added`, `recipient_held`, `recipient_removed`,
    /// `channel_kind_contradicted`, and for user keys (text 1.3) `linked_device_added`,
    /// `device_unlinked`, `user_key_adopted`, `other_user_key_listed`, `user_key_changed`,
    /// `user_key_conflict`, `no_verified_device`, `invalid_certificate`.
    let event: String
    let channelID: String?
    let userID: String
    let deviceID: String?
    /// Why a device was unlinked (`removed`, `expired`, `replaced`, `invalid`, `legacy`).
    var reason: String?
    /// A user key's fingerprint (`user_key_changed`: the new key, absent for "no key").
    var key: String?
    /// `user_key_changed`: when the old key was last seen (ISO 8601), and its labels.
    var lastSeen: String?
    var vouched: Bool?
    var wasVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case event, channelID = "channel_id", userID = "user_id", deviceID = "device_id", reason, key, lastSeen = "last_seen", vouched,
             wasVerified = "was_verified"
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
        case .linkedDeviceAdded(let user, let device):
            self.init(event: "linked_device_added", channelID: nil, userID: user.rawValue, deviceID: device.rawValue)
        case .deviceUnlinked(let user, let device, let reason):
            self.init(event: "device_unlinked", channelID: nil, userID: user.rawValue, deviceID: device.rawValue)
            self.reason = reason.rawValue
        case .userKeyAdopted(let user, let key):
            self.init(event: "user_key_adopted", channelID: nil, userID: user.rawValue, deviceID: nil)
            self.key = key.fingerprint
        case .otherUserKeyListed(let user, let key):
            self.init(event: "other_user_key_listed", channelID: nil, userID: user.rawValue, deviceID: nil)
            self.key = key.fingerprint
        case .userKeyChanged(let user, let to, let lastSeen, let vouched, let wasVerified):
            self.init(event: "user_key_changed", channelID: nil, userID: user.rawValue, deviceID: nil)
            self.key = to?.fingerprint
            self.lastSeen = lastSeen.formatted(.iso8601)
            self.vouched = vouched
            self.wasVerified = wasVerified
        case .userKeyConflict(let user):
            self.init(event: "user_key_conflict", channelID: nil, userID: user.rawValue, deviceID: nil)
        case .noVerifiedDevice(let user):
            self.init(event: "no_verified_device", channelID: nil, userID: user.rawValue, deviceID: nil)
        case .invalidCertificate(let user, let device):
            self.init(event: "invalid_certificate", channelID: nil, userID: user.rawValue, deviceID: device.rawValue)
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
        case "linked_device_added": "user \(userID) linked a device\(device)"
        case "device_unlinked": "unlinked (\(reason ?? "?")): user \(userID)\(device) gets nothing more"
        case "user_key_adopted": "user \(userID) now uses a user key \(key ?? "?") (the safety number changed)"
        case "other_user_key_listed": "another user key is listed for user \(userID): \(key ?? "?") (not trusted)"
        case "user_key_changed":
            "WARNING: user \(userID) \(key.map { "changed user key to \($0)" } ?? "no longer uses a user key"); old key last seen "
                + "\(lastSeen ?? "?")\(vouched == true ? "" : ", not vouched"); nothing is sent until accepted (user-key accept)"
        case "user_key_conflict": "WARNING: user \(userID) shows several user keys; nothing is sent until one is pinned (user-key pin)"
        case "no_verified_device": "user \(userID) has no verified device; nothing is sent to them"
        case "invalid_certificate": "skipped: a record of user \(userID)\(device) does not verify"
        default: "\(event): user \(userID)\(device)\(channel)"
        }
        return "* " + what
    }
}
