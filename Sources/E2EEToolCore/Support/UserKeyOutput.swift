import E2EEMessaging
import Foundation

/// What this device knows of a user's user key (docs/spec/protocol.md §10), as `user-key show`
/// and the `user-key` decisions print it: text lines, or one JSON object.
struct UserKeyOutput: Encodable {
    /// A key change waiting for `user-key accept`.
    struct Change: Encodable {
        /// The new key's fingerprint; `nil`: the user no longer uses a key.
        let to: String?
        /// When the change became due (ISO 8601).
        let dueAt: String
        let vouched: Bool
        let wasVerified: Bool
        enum CodingKeys: String, CodingKey { case to, dueAt = "due_at", vouched, wasVerified = "was_verified" }
    }

    let userID: String
    /// `unknown`, `none`, `pinned` or `conflicted`.
    let state: String
    /// The pinned key's fingerprint.
    let key: String?
    let verified: Bool
    /// ISO 8601.
    let seenUntil: String?
    /// ISO 8601.
    let lastSeen: String?
    let change: Change?
    let otherKeys: [String]
    /// The devices linked under the pinned key in the latest listing.
    let linkedDevices: [String]

    init(_ info: UserKeyInfo, linkedDevices: [DeviceID]) {
        userID = info.userID.rawValue
        state = Self.name(info.state)
        key = info.key?.fingerprint
        verified = info.verified
        seenUntil = info.seenUntil.map(Self.date)
        lastSeen = info.lastSeen.map(Self.date)
        change = info.change.map {
            Change(to: $0.to?.fingerprint, dueAt: Self.date($0.dueAt), vouched: $0.vouched, wasVerified: $0.wasVerified)
        }
        otherKeys = info.otherKeys.map(\.fingerprint)
        self.linkedDevices = linkedDevices.map(\.rawValue)
    }

    /// The state's JSON name.
    static func name(_ state: UserKeyInfo.State) -> String {
        switch state {
        case .unknown: "unknown"
        case .none: "none"
        case .pinned: "pinned"
        case .conflicted: "conflicted"
        }
    }

    /// A date as ISO 8601 (seconds, UTC).
    static func date(_ date: Date) -> String { date.formatted(.iso8601) }

    /// The text form: the state first, then what the user can do about it.
    var lines: [String] {
        var lines: [String]
        switch state {
        case "none": lines = ["user \(userID): no user key (new devices are held until approved: devices pending)"]
        case "pinned":
            lines = ["user \(userID): user key \(key ?? "?") (\(verified ? "verified" : "not verified"))",
                     "  seen until \(seenUntil ?? "-"), last seen \(lastSeen ?? "-")",
                     "  linked devices: " + (linkedDevices.isEmpty ? "none (nothing is sent to this user)" : linkedDevices.joined(separator: ", "))]
        case "conflicted":
            lines = ["WARNING: user \(userID) shows several user keys and none is pinned: nothing is sent to them. Compare safety numbers "
                     + "(safety-number \(userID) --key <fingerprint>), then user-key pin \(userID) <fingerprint>"]
        default: lines = ["user \(userID): not met yet (the next send or listing decides)"]
        }
        if let change {
            let target = change.to.map { "changed their user key to \($0)" } ?? "no longer uses a user key"
            lines.append("WARNING: user \(userID) \(target) (due \(change.dueAt)); the old key was last seen \(lastSeen ?? "-")"
                         + (change.vouched ? ", vouched by a linked device" : ", not vouched")
                         + (change.wasVerified ? ", and it was verified" : "")
                         + ". Nothing is sent until accepted: compare safety numbers, then user-key accept \(userID)")
        }
        lines += otherKeys.map { "  other listed key: \($0) (not trusted)" }
        return lines
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", state, key, verified, seenUntil = "seen_until", lastSeen = "last_seen", change, otherKeys = "other_keys"
        case linkedDevices = "linked_devices"
    }
}
