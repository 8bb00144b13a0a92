import E2EEKeyStore

extension Account {
    /// Holds devices the directory has just pinned for the first time, in every channel where
    /// their user's devices already receive keys (docs/spec/protocol.md §5.12): the device is
    /// pending — on ``pendingRecipients()``, ``pendingRecipientUpdates()`` and a
    /// ``IdentityEvent/recipientAdded(channelID:userID:deviceID:held:)`` event — from the moment
    /// it is discovered, whatever discovered it (a received message's sender check, a send's or
    /// the membership watch's listing), not only when the next send compares that channel. A
    /// device of our own user is held in every channel this device sends in.
    ///
    /// Each channel is decided by ``RecipientDecision`` for that one user, under the channel's
    /// recipients lock, so the first-contact rule stays in one place and a send comparing the
    /// same channel at the same time surfaces the device once, not twice. Only holds are
    /// applied here: a device the rule would send to (a known device of its user), a removal or
    /// a channel still waiting for its first contact is left to the next send's full comparison.
    /// A failure leaves the device to that comparison too; nothing is lost.
    func holdDiscoveredDevices(_ devices: [RemoteDevice]) async {
        let byUser = Dictionary(grouping: devices, by: \.userID)
        for (user, appeared) in byUser.sorted(by: { $0.key < $1.key }) {
            do {
                // Our own user takes part in every channel this device sends in, even where no
                // other device of ours received keys yet (a first login after a lone device).
                let own = user == userID
                let channels = try await store.read { [store] db -> [String] in
                    if own { return try store.channelTrustStore.loadOpenChannelIDs(db) }
                    let standings = try store.recipientStore.loadRecipients(userID: user.rawValue, db)
                    return Set(standings.filter { $0.state == .recipient }.map(\.channelID)).sorted()
                }
                for channel in channels {
                    try await holdDiscovered(appeared, of: user, in: ChannelID(stored: channel))
                }
            } catch {
                continue
            }
        }
    }

    /// One channel of ``holdDiscoveredDevices(_:)``.
    private func holdDiscovered(_ appeared: [RemoteDevice], of user: UserID, in channelID: ChannelID) async throws {
        try await locks.withLocks([LockKeys.recipients(channelID)]) { [self] in
            let time = configuration.now()
            let held: [RecipientDevice] = try await store.write { [store, device] db in
                let trust = store.channelTrustStore
                guard let pin = try trust.loadPin(channelID: channelID.rawValue, db), pin.standing.isOpen else { return [] }
                let recipients = store.recipientStore
                let participants = pin.isDM ? try recipients.loadParticipants(channelID: channelID.rawValue, db) : []
                if pin.isDM, !participants.contains(user.rawValue) { return [] }
                let records = try recipients.loadRecipients(channelID: channelID.rawValue, db).filter { $0.userID == user.rawValue }
                let input = RecipientDecision.Input(
                    channelID: channelID, isDM: pin.isDM, ownUserID: device.userID, ownDeviceID: device.deviceID, participants: participants,
                    members: [user.rawValue], devices: [user.rawValue: appeared.map(\.deviceID.rawValue)],
                    records: Dictionary(records.map { ($0.deviceID, $0) }) { a, _ in a },
                    known: try recipients.loadKnownDevices(userIDs: [user.rawValue], db),
                    recordedAnomalies: try recipients.loadAnomalies(channelID: channelID.rawValue, db))
                let plan = RecipientDecision.decide(input)
                let surfaced = Set(plan.changes.surfaced)
                let newlyHeld = plan.updates.filter { $0.state == .held && surfaced.contains($0.device) }.map(\.device)
                try recipients.storeRecipients(newlyHeld.map {
                    ChannelRecipient(channelID: channelID.rawValue, userID: $0.userID.rawValue, deviceID: $0.deviceID.rawValue, state: .held, updatedAt: time)
                }, db)
                return newlyHeld
            }
            for device in held {
                broadcaster.publish(.identity(.recipientAdded(channelID: channelID, userID: device.userID, deviceID: device.deviceID, held: true)))
            }
        }
    }
}
