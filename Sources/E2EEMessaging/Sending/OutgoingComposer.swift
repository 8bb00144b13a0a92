import E2EECrypto
import E2EEKeyStore
import Foundation

/// Turns a payload into outbox entries (docs/spec/protocol.md §4, §5; docs/spec/sync.md "Outbox"): asks
/// ``RecipientGate`` for the recipients (the approved devices of the members, never this one),
/// encrypts — a DM envelope over
/// pairwise sessions, or a group envelope with our sender key after distributing that key to
/// the devices that lack it — and queues the exact `content` with the advanced states in one
/// transaction, before any of it is posted. Network reads (members, bundles) happen first; the
/// state read–encrypt–commit runs under the session and sender-key locks.
struct OutgoingComposer: Sendable {
    let store: KeyStore
    let api: any ChatServerAPI
    let device: LocalDevice
    let sessions: PairwiseSessions
    let directory: DeviceDirectory
    let channels: ChannelDirectory
    let gate: RecipientGate
    let locks: KeyedAsyncLock
    let random: AnyRandomSource
    let now: @Sendable () -> StoreTime

    /// What to queue.
    struct Request: Sendable {
        /// The outbox id to use.
        var localID: OutboxEntryID
        /// The payload JSON (§6).
        var payload: SecretBytes
        /// `.message` or `.edit`.
        var kind: OutboxKind
        /// The edited message.
        var target: String?
        /// Replace an existing failed draft with this id (a retry of an unencryptable send).
        var replacesDraft: Bool
    }

    /// Encrypts and queues `request` in `channel`; returns the queued entry.
    /// - Throws: as ``queueReporting(_:in:)``.
    func queue(_ request: Request, in channel: ChatChannel) async throws -> OutboxMessage {
        try await queueReporting(request, in: channel).entry
    }

    /// Encrypts and queues `request` in `channel` for the recipients ``RecipientGate`` approves
    /// (docs/spec/protocol.md §5); returns the queued entry and what the gate surfaced.
    /// - Throws: ``MessagingError`` (``MessagingError/linkingRequired`` on a login not linked yet, unsupported channel, no recipients, every recipient held,
    ///   participants unknown, unreadable device list, encryption failed), ``ServerError`` from
    ///   reading members and bundles, key store errors.
    func queueReporting(_ request: Request, in channel: ChatChannel) async throws -> (entry: OutboxMessage, changes: RecipientChanges) {
        guard let encryption = channel.encryption else { throw MessagingError.unsupportedChannel(channel.id.rawValue) }
        // A login of an account with a key sends nothing but link messages until it is linked (§10.24).
        try await store.requireLinked()
        let (plan, recipients) = try await gate.plan(for: channel, refreshMembers: false)
        // The gate read our own listing, which may have shown a certificate of our user on a
        // device this one trusts (§10.25): from then on this device sends nothing until linked.
        try await store.requireLinked()
        if recipients.isEmpty, !plan.changes.held.isEmpty {
            throw MessagingError.allRecipientsHeld(channelID: channel.id, changes: plan.changes)
        }
        switch encryption {
        case .x3dh:
            return (try await queueDirect(request, in: channel, to: recipients), plan.changes)
        case .senderKeys:
            return (try await queueGroup(request, in: channel, to: recipients), plan.changes)
        }
    }

    private func sessionLocks(_ devices: [RemoteDevice]) -> Set<String> {
        Set(devices.map { LockKeys.session($0.deviceID) })
    }

    private func queueDirect(_ request: Request, in channel: ChatChannel, to recipients: [RemoteDevice]) async throws -> OutboxMessage {
        guard !recipients.isEmpty else { throw MessagingError.noRecipients(channelID: channel.id) }
        let channelID = try WireUUID(text: channel.id.rawValue)
        let senderDevice = try WireUUID(text: device.deviceID.rawValue)
        return try await locks.withLocks(sessionLocks(recipients)) { [self] in
            var encryptor = PairwiseEncryptor(try await sessions.prepare(recipients), random: random)
            let envelope = try DMEnvelope.seal(payload: request.payload, channel: channelID, senderDevice: senderDevice,
                                               recipients: recipients.map { try WireUUID(text: $0.deviceID.rawValue) }, using: random) { device, plaintext in
                try encryptor.encrypt(device, plaintext)
            }
            return try await store.queueOutgoingMessage(OutgoingCommit(
                localID: request.localID.rawValue, channelID: channel.id.rawValue, content: Base64.encode(envelope.encoded()), plaintext: request.payload,
                sessions: encryptor.updates, queuedAt: now(), kind: request.kind, contentType: EnvelopeKind.dm.contentType,
                targetMessageID: request.target, replacingDraft: request.replacesDraft))
        }
    }

    private func queueGroup(_ request: Request, in channel: ChatChannel, to recipients: [RemoteDevice]) async throws -> OutboxMessage {
        let senderDevice = try WireUUID(text: device.deviceID.rawValue)
        var locks = sessionLocks(recipients)
        locks.insert(LockKeys.senderKey(channel.id))
        let (entry, newIndexEntry) = try await self.locks.withLocks(locks) { [self] () async throws -> (OutboxMessage, SenderKeyEntry?) in
            var (state, newKey) = try await currentSenderKey(channel: channel, recipients: recipients)
            if let newKey, !recipients.isEmpty {
                // The new key, its distribution and its recipient set: one commit.
                try await queueDistribution(of: state, storing: newKey, in: channel, to: recipients)
            }
            let (envelope, advanced) = try state.encrypt(request.payload, senderDevice: senderDevice, using: random)
            state = advanced
            let entry = try await store.queueOutgoingMessage(OutgoingCommit(
                localID: request.localID.rawValue, channelID: channel.id.rawValue, content: Base64.encode(envelope.encoded()), plaintext: request.payload,
                newSenderKey: recipients.isEmpty ? newKey : nil,
                senderKey: OwnSenderKeyAdvance(keyID: state.keyID, state: state.serialized()), queuedAt: now(), kind: request.kind,
                contentType: EnvelopeKind.group.contentType, targetMessageID: request.target, replacingDraft: request.replacesDraft))
            let index = state.indexEntry
            return (entry, newKey != nil ? SenderKeyEntry(deviceID: device.deviceID, senderKeyPublic: index.senderKeyPublic, chainKey: index.chainKey) : nil)
        }
        if let newIndexEntry {
            // Informational only (§4): a failure here costs nothing, the SKDs carry the key.
            try? await api.uploadSenderKey(channelID: channel.id, newIndexEntry)
        }
        return entry
    }

    /// The channel's current sender key, or a new one (a rotation) to be stored with its
    /// distribution. The current key is kept only while the recipients are exactly the devices
    /// it was created for (docs/spec/protocol.md §4.6, §4.8): a device that is no longer a
    /// recipient (a member left or was removed, a device vanished, changed identity or was
    /// declined — T11) and a device that was not one (a new member, a new or approved device)
    /// both make a new key, so a newcomer never receives a chain state that a restored store
    /// may already have used (T18). Also after 100 messages.
    private func currentSenderKey(channel: ChatChannel, recipients: [RemoteDevice])
        async throws -> (state: SenderKeySendingState, newKey: OwnSenderKey?) {
        let recipientIDs = Set(recipients.map(\.deviceID.rawValue))
        let stored = try await store.read { [store] db -> (OwnSenderKey?, Set<SenderKeyShare>, Set<UInt32>) in
            let retained = try store.ownSenderKeyStore.loadKeyIDs(channelID: channel.id.rawValue, db)
            guard let key = try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: channel.id.rawValue, db) else { return (nil, [], retained) }
            return (key, try store.channelStore.loadShares(channelID: channel.id.rawValue, keyID: key.keyID, db), retained)
        }
        if let key = stored.0 {
            let state = try SenderKeySendingState(serialized: key.state)
            let createdFor = Set(stored.1.map(\.deviceID))
            if !state.needsRotation, createdFor == recipientIDs { return (state, nil) }
        }
        let state = SenderKeySendingState.generate(channel: try WireUUID(text: channel.id.rawValue), retainedKeyIDs: stored.2, using: random)
        return (state, OwnSenderKey(channelID: channel.id.rawValue, keyID: state.keyID, state: state.serialized(), isCurrent: true,
                                    messagesSent: 0, createdAt: now()))
    }
}

/// Names of the locks around protocol state.
enum LockKeys {
    /// The pairwise session with a remote device.
    static func session(_ deviceID: DeviceID) -> String { "session:\(deviceID)" }
    /// Our sender key in a channel.
    static func senderKey(_ channelID: ChannelID) -> String { "sender-key:\(channelID)" }
    /// The recipient comparison of a channel (``RecipientGate``).
    static func recipients(_ channelID: ChannelID) -> String { "recipients:\(channelID)" }
}
