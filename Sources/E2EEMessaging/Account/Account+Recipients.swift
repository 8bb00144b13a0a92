import E2EEKeyStore

extension Account {
    /// Every device held back from a channel's keys, waiting for ``approveDevice(_:)`` or
    /// ``declineDevice(_:)``.
    /// - Throws: key store errors.
    public func pendingRecipients() async throws -> [HeldRecipient] {
        try await store.read { [store] db in try store.recipientStore.loadRecipients(state: .held, db) }.map {
            HeldRecipient(channelID: ChannelID(stored: $0.channelID), device: RecipientDevice(userID: UserID(stored: $0.userID), deviceID: DeviceID(stored: $0.deviceID)))
        }
    }

    /// The pending list to observe: ``pendingRecipients()`` now, then again whenever it changed —
    /// a device or member held or no longer held (a send's or the membership watch's comparison,
    /// an approval or decline here or announced by another of our devices, a channel left). An
    /// app binds its "waiting for approval" list to it instead of re-reading after every send.
    /// A reader that falls behind gets the newest list (lists in between are skipped, never
    /// half-applied); the stream ends when the account shuts down.
    public nonisolated func pendingRecipientUpdates() -> AsyncStream<[HeldRecipient]> {
        let wakeUps = broadcaster.recipientStandings.stream()
        let (updates, continuation) = AsyncStream<[HeldRecipient]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reader = Task { [weak self] in
            var last: [HeldRecipient]?
            func publishIfChanged() async {
                guard let self, let list = try? await self.pendingRecipients(), list != last else { return }
                last = list
                continuation.yield(list)
            }
            await publishIfChanged()
            for await _ in wakeUps { await publishIfChanged() }
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return updates
    }

    /// Approves a held (or declined) device in every channel that holds it: it receives keys
    /// from now on, never earlier ones. In a DM it becomes a recipient of later messages; in a
    /// group our next message makes a new sender key and distributes it, the approved device
    /// included (a sender key only ever reaches the devices it was created for,
    /// docs/spec/protocol.md §4.8). The approval is announced in each group (§5.15). Returns the
    /// channels it was approved in.
    /// - Throws: ``MessagingError/unknownRecipient(deviceID:)`` when no channel holds or declined
    ///   it, key store errors.
    @discardableResult
    public func approveDevice(_ deviceID: DeviceID) async throws -> [ChannelID] {
        return try await trustDecision {
            let device = deviceID
            let time = configuration.now()
            let approved = try await store.write { [store] db in
                guard try !store.contactKeyStore.isDeviceOfKeyedUser(device.rawValue, db) else { throw MessagingError.deviceIsCertified(deviceID: device) }
                return try store.recipientStore.approveDevice(device.rawValue, at: time, decidedAt: time.milliseconds, db)
            }
            guard !approved.isEmpty else { throw MessagingError.unknownRecipient(deviceID: device) }
            broadcaster.recipientStandings.signal()
            await announce(.approved, [device.rawValue], inEach: approved.map(\.channelID))
            return approved.map { ChannelID(stored: $0.channelID) }
        }
    }

    /// Declines a device in every channel that holds it or sends to it: it gets no keys until
    /// approved (a group's sender key is renewed before the next message if it held it). The
    /// choice is stored: a restart keeps it. Returns the channels it was declined in.
    /// - Throws: ``MessagingError/unknownRecipient(deviceID:)``, key store errors.
    @discardableResult
    public func declineDevice(_ deviceID: DeviceID) async throws -> [ChannelID] {
        return try await trustDecision {
            let device = deviceID
            let time = configuration.now()
            let declined = try await store.write { [store] db in try store.recipientStore.declineDevice(device.rawValue, at: time, decidedAt: time.milliseconds, db).map(\.channelID) }
            guard !declined.isEmpty else { throw MessagingError.unknownRecipient(deviceID: device) }
            broadcaster.recipientStandings.signal()
            await announce(.declined, [device.rawValue], inEach: declined)
            return declined.map { ChannelID(stored: $0) }
        }
    }

    /// Sets the recipient policy of a channel, or of the account when `channelID` is nil;
    /// `nil` clears it. The setting is stored and reported, but no longer decides who gets keys:
    /// a new member or device is held whatever it says (docs/spec/protocol.md §5.11–§5.13).
    /// - Throws: ``MessagingError/unknownChannel(_:)``, key store errors.
    public func setRecipientPolicy(_ policy: RecipientPolicy?, channelID: ChannelID? = nil) async throws {
        var channel: String?
        if let channelID { channel = try await channelDirectory.channel(id: channelID).id.rawValue }
        let scope = channel
        try await store.write { [store] db in try store.recipientStore.storePolicy(policy, channelID: scope, db) }
    }

    /// The policy set for a channel: its own, else the account's, else the configured one, else
    /// `nil`. Informational since docs/spec/protocol.md text 1.2: new members and devices are
    /// held whatever it says.
    /// - Throws: key store errors.
    public func recipientPolicy(channelID: ChannelID? = nil) async throws -> RecipientPolicy? {
        let channel = channelID?.rawValue
        let stored = try await store.read { [store] db in
            try channel.flatMap { try store.recipientStore.loadPolicy(channelID: $0, db) } ?? store.recipientStore.loadPolicy(channelID: nil, db)
        }
        return stored ?? configuration.recipientPolicy
    }

    /// Records our user's devices listed now as trusted on first use: the devices listed when
    /// this device registers or logs in (docs/spec/protocol.md §5). A failed listing is retried
    /// at once; if it still fails, no other device of our user is trusted on first use (each
    /// waits for ``approveDevice(_:)``), and no later listing takes its place.
    func rememberOwnDevicesAtRegistration() async throws {
        try await recipientGate.rememberOwnDevices()
    }
}
