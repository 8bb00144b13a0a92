import E2EEKeyStore

/// The pure rule of docs/spec/protocol.md §5 "Who receives keys": the members and devices the server
/// lists now against what this device last sent keys to in the channel and the devices it knows
/// (a recipient policy no longer decides anything here). No I/O; ``RecipientGate`` loads the input and applies the plan.
enum RecipientDecision {
    /// Everything the rule looks at.
    struct Input: Sendable, Equatable {
        /// The channel.
        var channelID: ChannelID
        /// Whether it is a DM.
        var isDM: Bool
        /// Our user.
        var ownUserID: UserID
        /// This device (never a recipient).
        var ownDeviceID: DeviceID
        /// A DM's two fixed participants (ignored for groups).
        var participants: Set<String>
        /// The members the server lists now.
        var members: [String]
        /// The trusted devices the server lists now, per member (members not asked may be absent).
        var devices: [String: [String]]
        /// The channel's stored standings, by device.
        var records: [String: ChannelRecipient]
        /// Devices this device knows, per user (a user present here was contacted before).
        var known: [String: Set<String>]
        /// Users already surfaced as DM anomalies.
        var recordedAnomalies: Set<String>
        /// Users whose pinned user key decided their devices (docs/spec/protocol.md §10.7): the
        /// devices listed for them are exactly the linked ones, recipients without any hold.
        var linkedUsers: Set<String> = []
    }

    /// What to do.
    struct Plan: Sendable, Equatable {
        /// The devices to encrypt to.
        var recipients: [RecipientDevice] = []
        /// What to surface and report.
        var changes = RecipientChanges()
        /// Devices whose user is still listed but the device is not (``IdentityEvent/deviceRemoved(userID:deviceID:)``).
        var vanished: [RecipientDevice] = []
        /// New standings to store.
        var updates: [(device: RecipientDevice, state: RecipientState)] = []
        /// Devices to record as known.
        var newlyKnown: [RecipientDevice] = []

        static func == (lhs: Plan, rhs: Plan) -> Bool {
            lhs.recipients == rhs.recipients && lhs.changes == rhs.changes && lhs.vanished == rhs.vanished
                && lhs.updates.map(\.device) == rhs.updates.map(\.device) && lhs.updates.map(\.state) == rhs.updates.map(\.state)
                && lhs.newlyKnown == rhs.newlyKnown
        }
    }

    /// Applies the rule. `members` are the users whose devices may receive keys: a DM's listed
    /// users (non-participants are anomalies), a group's approved members listed now.
    static func decide(_ input: Input) -> Plan {
        var plan = Plan()
        var listed: Set<String> = []
        for member in Set(input.members).sorted() {
            if input.isDM, !input.participants.contains(member) {
                if !input.recordedAnomalies.contains(member) { plan.changes.unexpectedMembers.append(UserID(stored: member)) }
                continue
            }
            // Our own user is never a first contact: its devices trusted on first use are the
            // ones listed at registration or login; any other one waits for approval.
            let own = member == input.ownUserID.rawValue
            let firstContact = input.known[member] == nil && !own
            let knownDevices = input.known[member] ?? []
            for deviceID in (input.devices[member] ?? []).sorted() where deviceID != input.ownDeviceID.rawValue {
                let device = RecipientDevice(userID: UserID(stored: member), deviceID: DeviceID(stored: deviceID))
                listed.insert(deviceID)
                if input.linkedUsers.contains(member) {
                    // Certified by the user's key: never held, never offered for approval.
                    if input.records[deviceID]?.state != .recipient {
                        plan.changes.surfaced.append(device)
                        plan.updates.append((device, .recipient))
                    }
                    plan.recipients.append(device)
                    continue
                }
                if firstContact { plan.newlyKnown.append(device) }
                switch input.records[deviceID]?.state {
                case .recipient?:
                    plan.recipients.append(device)
                case .declined?:
                    continue
                case .held?:
                    plan.changes.held.append(device)
                case .removed?, nil:
                    // Unknown after first contact, or back after it was removed: held whatever
                    // the channel's policy, until the app approves it (§5.12).
                    let cameBack = input.records[deviceID]?.state == .removed
                    let trusted = firstContact || knownDevices.contains(deviceID)
                    plan.changes.surfaced.append(device)
                    if !trusted || cameBack {
                        plan.changes.held.append(device)
                        plan.updates.append((device, .held))
                    } else {
                        plan.recipients.append(device)
                        plan.updates.append((device, .recipient))
                    }
                }
            }
        }
        let listedMembers = Set(input.members).filter { !input.isDM || input.participants.contains($0) }
        for record in input.records.values.sorted(by: { ($0.userID, $0.deviceID) < ($1.userID, $1.deviceID) })
            where (record.state == .recipient || record.state == .held) && !listed.contains(record.deviceID) {
            let device = RecipientDevice(userID: UserID(stored: record.userID), deviceID: DeviceID(stored: record.deviceID))
            plan.changes.removed.append(device)
            plan.updates.append((device, .removed))
            // A keyed user's device that is merely unlinked was surfaced as such (§10.7).
            if listedMembers.contains(record.userID), !input.linkedUsers.contains(record.userID) { plan.vanished.append(device) }
        }
        plan.changes.recipientCount = plan.recipients.count
        return plan
    }
}
