import E2EECrypto
import E2EEKeyStore

/// The channels link messages travel in (docs/spec/protocol.md §10.22, amending §5.7–§5.9):
/// `is_dm` false with `encryption_type` `x3dh` — a pair no DM or group has — named
/// `e2ee-devices` (the user's devices channel) or `e2ee-transfer` (one transfer), and created
/// by our own user. They are never requests, never shown, and carry nothing but link
/// envelopes; a channel of that shape created by anyone else is an anomaly, never opened.
enum LinkChannel: Sendable, Equatable {
    /// The user's devices channel, where requests, grants and recerts travel.
    case devices
    /// One transfer's channel.
    case transfer

    /// The name of a devices channel.
    static let devicesName = "e2ee-devices"
    /// The name of a transfer channel.
    static let transferName = "e2ee-transfer"

    /// The server's name for this kind of link channel.
    var name: String {
        switch self {
        case .devices: Self.devicesName
        case .transfer: Self.transferName
        }
    }

    /// Whether a channel has the link channels' shape (`is_dm` false, `x3dh`), whoever made it.
    static func hasLinkShape(_ record: ChannelRecord) -> Bool {
        !record.isDM && record.encryptionType == ChannelEncryptionType.x3dh.rawValue
    }

    /// The link channel `record` is for our user `ownUserID`, or nil when it is not one: not of
    /// the shape, not created by our user, or not named as a link channel.
    static func kind(of record: ChannelRecord, ownUserID: String) -> LinkChannel? {
        guard hasLinkShape(record), record.createdBy == ownUserID else { return nil }
        switch record.name {
        case devicesName?: return .devices
        case transferName?: return .transfer
        default: return nil
        }
    }
}

/// Where a channel stands towards link messages (docs/spec/protocol.md §10.22): only our own
/// link channels carry them, and they carry nothing else.
enum LinkChannelStanding: Sendable, Equatable {
    /// Not of the link channels' shape: a DM, a group, or a channel this device does not know.
    case none
    /// One of our user's link channels.
    case ours(LinkChannel)
    /// Of the link channels' shape but not ours (created by someone else, or not named as one):
    /// an anomaly, never opened.
    case foreign

    /// The standing of the stored channel `record` (nil: unknown here) for our user `ownUserID`.
    init(_ record: ChannelRecord?, ownUserID: String) {
        guard let record, LinkChannel.hasLinkShape(record) else {
            self = .none
            return
        }
        self = LinkChannel.kind(of: record, ownUserID: ownUserID).map(LinkChannelStanding.ours) ?? .foreign
    }
}
