import E2EEKeyStore

/// Decides, before each send, who gets keys (docs/spec/protocol.md §5, THREATS T11): reads the members and
/// their verified devices, compares them with the channel's stored recipients through
/// ``RecipientDecision``, stores the new standings, and publishes what changed — all before the
/// composer encrypts anything. Standings are stored before the send commits, so a held device
/// stays held and a surfaced one is not surfaced twice even when the send then fails.
struct RecipientGate: Sendable {
    let store: KeyStore
    let api: any ChatServerAPI
    let directory: DeviceDirectory
    let channels: ChannelDirectory
    let events: EventBroadcaster
    let device: LocalDevice
    let locks: KeyedAsyncLock
    let now: @Sendable () -> StoreTime

    /// The plan for a send in `channel`, with the verified devices to encrypt to.
    /// - Throws: ``MessagingError/participantsUnknown(channelID:)``,
    ///   ``MessagingError/unreadableDeviceList(userID:)``, ``ServerError`` (members, bundles),
    ///   key store errors.
    func plan(for channel: ChatChannel, refreshMembers: Bool) async throws -> (RecipientDecision.Plan, [RemoteDevice]) {
        // One comparison per channel at a time: two concurrent sends never surface a change twice.
        try await locks.withLocks([LockKeys.recipients(channel.id)]) { [self] in
            try await comparedPlan(for: channel, refreshMembers: refreshMembers)
        }
    }

    private func comparedPlan(for channel: ChatChannel, refreshMembers: Bool) async throws -> (RecipientDecision.Plan, [RemoteDevice]) {
        let pin = try await store.read { [store] db in try store.channelTrustStore.loadPin(channelID: channel.id.rawValue, db) }
        guard let pin, pin.standing.isOpen else { throw MessagingError.channelNotAccepted(channelID: channel.id) }
        guard pin.isDM == channel.isDM else { throw MessagingError.channelKindContradicted(channelID: channel.id) }
        let listedMembers = try await channels.members(of: channel, refresh: refreshMembers).map(\.userID)
        var members = listedMembers
        var memberOutcome = MemberDecision.Outcome()
        let participants = channel.isDM ? try await participants(of: channel) : []
        if !channel.isDM {
            let standings = try await store.read { [store] db in try store.channelTrustStore.loadMembers(channelID: channel.id.rawValue, db) }
            memberOutcome = MemberDecision.decide(channelID: channel.id, listed: listedMembers, ownUserID: device.userID, standings: standings, now: now())
            members = memberOutcome.approved
        }
        let listing = try await listedDevices(of: Set(members).filter { !channel.isDM || participants.contains($0) })
        if channel.isDM, let unresolved = listing.unresolved.first { throw unresolved.error }
        let listed = listing.devices
        let users = Array(listed.keys)
        let stored = try await store.read { [store, channel] db in
            let recipients = store.recipientStore
            return (try recipients.loadRecipients(channelID: channel.id.rawValue, db), try recipients.loadKnownDevices(userIDs: users, db),
                    try recipients.loadAnomalies(channelID: channel.id.rawValue, db))
        }
        let input = RecipientDecision.Input(
            channelID: channel.id, isDM: channel.isDM, ownUserID: device.userID, ownDeviceID: device.deviceID, participants: participants,
            members: members, devices: listed.mapValues { $0.map(\.deviceID.rawValue) }, records: Dictionary(stored.0.map { ($0.deviceID, $0) }) { a, _ in a },
            known: stored.1, recordedAnomalies: stored.2, linkedUsers: listing.linkedUsers)
        var plan = RecipientDecision.decide(input)
        plan.changes.heldMembers = memberOutcome.held.map { UserID(stored: $0) }
        plan.changes.unresolvedUsers = listing.unresolved
        try await apply(plan, members: memberOutcome, channelID: channel.id)
        publish(plan, newlyHeldMembers: memberOutcome.newlyHeld, channelID: channel.id)
        let byID = Dictionary(listed.values.joined().map { ($0.deviceID, $0) }) { a, _ in a }
        return (plan, plan.recipients.compactMap { byID[$0.deviceID] })
    }

    /// The devices listed now for each of `users`, read together. Never from the directory's
    /// cache: a device that logged in a moment ago must be compared like every other listed
    /// device (§5.13), or it would be left out — neither held nor surfaced — for as long as an
    /// older listing is reused. The reads run side by side so that a group's send waits for
    /// one round trip, not one per member.
    ///
    /// A user whose user key is unresolved (conflicted, no verified device, a change pending;
    /// docs/spec/protocol.md §10) gets nothing and is reported; the others go on.
    private func listedDevices(of users: Set<String>) async throws -> RecipientListing {
        try await withThrowingTaskGroup(of: (String, UserListing).self) { [directory] group in
            for user in users {
                group.addTask {
                    do {
                        let found = try await directory.recipientListing(of: UserID(stored: user), refresh: true)
                        return (user, .devices(found.devices, linked: found.linked))
                    } catch let error as MessagingError {
                        guard let unresolved = UnresolvedUser(error) else { throw error }
                        return (user, .unresolved(unresolved))
                    }
                }
            }
            var listing = RecipientListing()
            for try await (user, result) in group {
                switch result {
                case .devices(let devices, let linked):
                    listing.devices[user] = devices
                    if linked { listing.linkedUsers.insert(user) }
                case .unresolved(let unresolved):
                    listing.unresolved.append(unresolved)
                }
            }
            listing.unresolved.sort { $0.userID.rawValue < $1.userID.rawValue }
            return listing
        }
    }

    /// What one user's listing gave: the devices that may receive keys (and whether their key
    /// decided them), or why the user gets nothing.
    private enum UserListing: Sendable {
        case devices([RemoteDevice], linked: Bool)
        case unresolved(UnresolvedUser)
    }

    /// What ``listedDevices(of:)`` found.
    private struct RecipientListing {
        var devices: [String: [RemoteDevice]] = [:]
        var linkedUsers: Set<String> = []
        var unresolved: [UnresolvedUser] = []
    }

    /// Records our own user's devices listed now (`GET /devices`, which consumes no one-time
    /// prekey) as known: at registration or login, trusted on first use. Does nothing once our
    /// user has known devices. A failed listing is retried at once (`attempts` in all); when it
    /// still fails, only this device is recorded, so that no later listing is ever taken as
    /// the first one: every other device of our user then waits for the app's approval.
    /// Returns whether the listing was read.
    /// - Throws: key store errors.
    @discardableResult
    func rememberOwnDevices(attempts: Int = 3) async throws -> Bool {
        let user = device.userID
        let known = try await store.read { [store] db in try store.recipientStore.loadKnownDevices(userIDs: [user.rawValue], db) }
        guard known.isEmpty else { return true }
        var listed: [String]?
        for _ in 0..<max(1, attempts) where listed == nil {
            listed = try? await api.devices().map { $0.id.rawValue }
        }
        let others = Set(listed ?? []).subtracting([device.deviceID.rawValue])
        let time = now()
        // The listing is the server's word: the other devices it names get keys (trusted on
        // first use), but their decisions count here only once the app confirms them
        // (docs/spec/protocol.md §5.12; ``Account/confirmOwnDevices(_:)``).
        try await store.write { [store, device] db in
            try store.recipientStore.storeKnownDevices([(user.rawValue, device.deviceID.rawValue)], at: time, db)
            try store.recipientStore.storeKnownDevices(others.map { (user.rawValue, $0) }, at: time, unconfirmed: true, db)
        }
        return listed != nil
    }

    /// Fixes a DM's participants if they are not fixed yet (docs/spec/protocol.md §5): the two users
    /// named when this device opened it or learned of it.
    /// Returns whether they were fixed now.
    /// - Throws: key store errors.
    @discardableResult
    func fixParticipants(channelID: ChannelID, otherUser: UserID) async throws -> Bool {
        let users: Set<String> = [device.userID.rawValue, otherUser.rawValue]
        return try await store.write { [store] db in try store.recipientStore.fixParticipants(channelID: channelID.rawValue, userIDs: users, db) }
    }

    /// The DM's fixed participants (docs/spec/protocol.md §5): fixed when this device opened
    /// the DM or accepted its request, never from the server's creator or member list.
    private func participants(of channel: ChatChannel) async throws -> Set<String> {
        let fixed = try await store.read { [store] db in try store.recipientStore.loadParticipants(channelID: channel.id.rawValue, db) }
        guard fixed.count == 2 else { throw MessagingError.participantsUnknown(channelID: channel.id) }
        return fixed
    }

    private func apply(_ plan: RecipientDecision.Plan, members: MemberDecision.Outcome, channelID: ChannelID) async throws {
        let time = now()
        let records = plan.updates.map {
            ChannelRecipient(channelID: channelID.rawValue, userID: $0.device.userID.rawValue, deviceID: $0.device.deviceID.rawValue, state: $0.state, updatedAt: time)
        }
        let known = plan.newlyKnown.map { (userID: $0.userID.rawValue, deviceID: $0.deviceID.rawValue) }
        let anomalies = plan.changes.unexpectedMembers.map(\.rawValue)
        guard !records.isEmpty || !known.isEmpty || !anomalies.isEmpty || !members.updates.isEmpty else { return }
        try await store.write { [store] db in
            try store.channelTrustStore.storeMembers(members.updates, at: time, db)
            let recipients = store.recipientStore
            try recipients.storeRecipients(records, db)
            try recipients.storeKnownDevices(known, at: time, db)
            try recipients.storeAnomalies(channelID: channelID.rawValue, userIDs: anomalies, at: time, db)
        }
    }

    private func publish(_ plan: RecipientDecision.Plan, newlyHeldMembers: [String], channelID: ChannelID) {
        let held = Set(plan.changes.held)
        for user in newlyHeldMembers { events.publish(.identity(.memberHeld(channelID: channelID, userID: UserID(stored: user)))) }
        for user in plan.changes.unexpectedMembers { events.publish(.identity(.unexpectedMember(channelID: channelID, userID: user))) }
        for device in plan.changes.surfaced {
            events.publish(.identity(.recipientAdded(channelID: channelID, userID: device.userID, deviceID: device.deviceID,
                                                     held: held.contains(device))))
        }
        for device in plan.changes.removed {
            events.publish(.identity(.recipientRemoved(channelID: channelID, userID: device.userID, deviceID: device.deviceID)))
        }
        for device in plan.vanished { events.publish(.identity(.deviceRemoved(userID: device.userID, deviceID: device.deviceID))) }
    }
}
