import E2EEMessaging

/// A member's signed announcement in a group, as `listen` prints it: a line, or with `--json`
/// one object (`{"event":"announcement","kind":"added","channel_id":…,"sender_user_id":…,
/// "ids":[…],"applied_here":false}`). Another user's announcement only prompts (nobody it
/// names gets keys until approved here); our own other device's was applied here.
struct AnnouncementNotice: Encodable, Equatable {
    let event = "announcement"
    let kind: String
    let channelID: String
    let senderUserID: String
    let senderDeviceID: String
    let ids: [String]
    let appliedHere: Bool

    enum CodingKeys: String, CodingKey {
        case event, kind, channelID = "channel_id", senderUserID = "sender_user_id", senderDeviceID = "sender_device_id", ids
        case appliedHere = "applied_here"
    }

    init(_ announcement: ChannelAnnouncement) {
        kind = announcement.kind.rawValue
        channelID = announcement.channelID.rawValue
        senderUserID = announcement.senderUserID.rawValue
        senderDeviceID = announcement.senderDeviceID.rawValue
        ids = announcement.named.map(\.rawValue)
        appliedHere = announcement.appliedHere
    }

    /// The text line.
    func line() -> String {
        let names = ids.joined(separator: ", ")
        if appliedHere {
            return "* our device \(senderDeviceID) \(kind) \(names) in channel \(channelID): applied here"
        }
        let prompt = switch kind {
        case "added", "approved", "accepted": " (held here until you approve: channels member approve / devices approve)"
        default: ""
        }
        return "* user \(senderUserID) \(kind) \(names) in channel \(channelID)\(prompt)"
    }
}
