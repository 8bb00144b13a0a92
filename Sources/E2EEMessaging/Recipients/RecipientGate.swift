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
    let configuredPolicy: RecipientPolicy?
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
        let members = try await channels.members(of: channel, refresh: refreshMembers).map(\.userID)
        let participants = channel.isDM ? try await participants(of: channel, members: members) : []
        var listed: [String: [RemoteDevice]] = [:]
        for member in Set(members) where !channel.isDM || participants.contains(member) {
            listed[member] = try await directory.recipientDevices(of: member)
        }
        let users = Array(listed.keys)
        let stored = try await store.read { [store, channel] db in
            let recipients = store.recipientStore
            return (try recipients.loadRecipients(channelID: channel.id, db), try recipients.loadKnownDevices(userIDs: users, db),
                    try recipients.loadAnomalies(channelID: channel.id, db),
                    try recipients.loadPolicy(channelID: channel.id, db) ?? recipients.loadPolicy(channelID: nil, db))
        }
        let input = RecipientDecision.Input(
            channelID: channel.id, isDM: channel.isDM, ownUserID: device.userID, ownDeviceID: device.deviceID, participants: participants,
            members: members, devices: listed.mapValues { $0.map(\.deviceID) }, records: Dictionary(stored.0.map { ($0.deviceID, $0) }) { a, _ in a },
            known: stored.1, recordedAnomalies: stored.2, policy: stored.3 ?? configuredPolicy)
        let plan = RecipientDecision.decide(input)
        try await apply(plan, channelID: channel.id)
        publish(plan, channelID: channel.id)
        let byID = Dictionary(listed.values.joined().map { ($0.deviceID, $0) }) { a, _ in a }
        return (plan, plan.recipients.compactMap { byID[$0.deviceID] })
    }

    /// Records our own user's devices listed now (`GET /devices`, which consumes no one-time
    /// prekey) as known: at registration, trusted on first use. Does nothing once our user has
    /// known devices.
    /// - Throws: ``ServerError``, key store errors.
    func rememberOwnDevices() async throws {
        let user = device.userID
        let known = try await store.read { [store] db in try store.recipientStore.loadKnownDevices(userIDs: [user], db) }
        guard known.isEmpty else { return }
        let devices = try await api.devices().map { $0.id.lowercased() } + [device.deviceID]
        let time = now()
        try await store.write { [store] db in
            try store.recipientStore.storeKnownDevices(Set(devices).map { (user, $0) }, at: time, db)
        }
    }

    /// Fixes a DM's participants if they are not fixed yet (docs/spec/protocol.md §5): the two users
    /// named when this device opened it or learned of it.
    /// - Throws: key store errors.
    func fixParticipants(channelID: String, otherUser: String) async throws {
        let users: Set<String> = [device.userID, otherUser.lowercased()]
        try await store.write { [store] db in _ = try store.recipientStore.fixParticipants(channelID: channelID, userIDs: users, db) }
    }

    /// The DM's fixed participants; not fixed yet: the creator and us, else the member list
    /// when it names exactly us and one other user.
    private func participants(of channel: ChatChannel, members: [String]) async throws -> Set<String> {
        let own = device.userID
        let (fixed, creator) = try await store.read { [store] db in
            (try store.recipientStore.loadParticipants(channelID: channel.id, db), try store.channelStore.loadChannel(id: channel.id, db)?.createdBy)
        }
        if !fixed.isEmpty { return fixed }
        var candidate: Set<String> = []
        if let creator = creator?.lowercased(), creator != own {
            candidate = [own, creator]
        } else if Set(members).count == 2, members.contains(own) {
            candidate = Set(members)
        }
        guard candidate.count == 2 else { throw MessagingError.participantsUnknown(channelID: channel.id) }
        let chosen = candidate
        try await store.write { [store] db in _ = try store.recipientStore.fixParticipants(channelID: channel.id, userIDs: chosen, db) }
        return try await store.read { [store] db in try store.recipientStore.loadParticipants(channelID: channel.id, db) }
    }

    private func apply(_ plan: RecipientDecision.Plan, channelID: String) async throws {
        let time = now()
        let records = plan.updates.map {
            ChannelRecipient(channelID: channelID, userID: $0.device.userID, deviceID: $0.device.deviceID, state: $0.state, updatedAt: time)
        }
        let known = plan.newlyKnown.map { (userID: $0.userID, deviceID: $0.deviceID) }
        let anomalies = plan.changes.unexpectedMembers
        guard !records.isEmpty || !known.isEmpty || !anomalies.isEmpty else { return }
        try await store.write { [store] db in
            let recipients = store.recipientStore
            try recipients.storeRecipients(records, db)
            try recipients.storeKnownDevices(known, at: time, db)
            try recipients.storeAnomalies(channelID: channelID, userIDs: anomalies, at: time, db)
        }
    }

    private func publish(_ plan: RecipientDecision.Plan, channelID: String) {
        let held = Set(plan.changes.held)
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
