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
        var localID: String
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
    /// - Throws: ``MessagingError`` (unsupported channel, no recipients, every recipient held,
    ///   participants unknown, unreadable device list, encryption failed), ``ServerError`` from
    ///   reading members and bundles, key store errors.
    func queueReporting(_ request: Request, in channel: ChatChannel) async throws -> (entry: OutboxMessage, changes: RecipientChanges) {
        guard let encryption = channel.encryption else { throw MessagingError.unsupportedChannel(channel.id) }
        let (plan, recipients) = try await gate.plan(for: channel, refreshMembers: false)
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
        let channelID = try WireUUID(text: channel.id)
        let senderDevice = try WireUUID(text: device.deviceID)
        return try await locks.withLocks(sessionLocks(recipients)) { [self] in
            var encryptor = PairwiseEncryptor(try await sessions.prepare(recipients))
            let envelope = try DMEnvelope.seal(payload: request.payload, channel: channelID, senderDevice: senderDevice,
                                               recipients: recipients.map { try WireUUID(text: $0.deviceID) }, using: random) { device, plaintext in
                try encryptor.encrypt(device, plaintext)
            }
            return try await store.queueOutgoingMessage(OutgoingCommit(
                localID: request.localID, channelID: channel.id, content: Base64.encode(envelope.encoded()), plaintext: request.payload,
                sessions: encryptor.updates, queuedAt: now(), kind: request.kind, contentType: EnvelopeKind.dm.contentType,
                targetMessageID: request.target, replacingDraft: request.replacesDraft))
        }
    }

    private func queueGroup(_ request: Request, in channel: ChatChannel, to recipients: [RemoteDevice]) async throws -> OutboxMessage {
        let channelID = try WireUUID(text: channel.id)
        let senderDevice = try WireUUID(text: device.deviceID)
        var locks = sessionLocks(recipients)
        locks.insert(LockKeys.senderKey(channel.id))
        let (entry, newIndexEntry) = try await self.locks.withLocks(locks) { [self] () async throws -> (OutboxMessage, SenderKeyEntry?) in
            var (state, shares, rotated) = try await currentSenderKey(channel: channel, channelID: channelID, recipients: recipients)
            let missing = recipients.filter { !shares.contains($0.deviceID) }
            try await queueDistribution(of: state, in: channel, to: missing)
            shares.formUnion(missing.map(\.deviceID))
            let (envelope, advanced) = try state.encrypt(request.payload, senderDevice: senderDevice)
            state = advanced
            let entry = try await store.queueOutgoingMessage(OutgoingCommit(
                localID: request.localID, channelID: channel.id, content: Base64.encode(envelope.encoded()), plaintext: request.payload,
                senderKey: OwnSenderKeyAdvance(keyID: state.keyID, state: state.serialized()), queuedAt: now(), kind: request.kind,
                contentType: EnvelopeKind.group.contentType, targetMessageID: request.target, replacingDraft: request.replacesDraft))
            let index = state.indexEntry
            return (entry, rotated ? SenderKeyEntry(deviceID: device.deviceID, senderKeyPublic: index.senderKeyPublic, chainKey: index.chainKey) : nil)
        }
        if let newIndexEntry {
            // Informational only (§4): a failure here costs nothing, the SKDs carry the key.
            try? await api.uploadSenderKey(channelID: channel.id, newIndexEntry)
        }
        return entry
    }

    /// The channel's current sender key and the devices holding it; a new key (rotation) when
    /// there is none, after 100 messages, or when a device holding it is no longer a recipient
    /// (a member left or was removed, a device vanished or changed identity) — T11.
    private func currentSenderKey(channel: ChatChannel, channelID: WireUUID, recipients: [RemoteDevice])
        async throws -> (SenderKeySendingState, Set<String>, Bool) {
        let recipientIDs = Set(recipients.map(\.deviceID))
        let stored = try await store.read { [store] db -> (OwnSenderKey?, Set<SenderKeyShare>) in
            guard let key = try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: channel.id, db) else { return (nil, []) }
            return (key, try store.channelStore.loadShares(channelID: channel.id, keyID: key.keyID, db))
        }
        if let key = stored.0 {
            let state = try SenderKeySendingState(serialized: key.state)
            let holders = Set(stored.1.map(\.deviceID))
            if !state.needsRotation, holders.isSubset(of: recipientIDs) { return (state, holders, false) }
        }
        let retained = try await store.read { [store] db in try store.ownSenderKeyStore.loadKeyIDs(channelID: channel.id, db) }
        let state = SenderKeySendingState.generate(channel: channelID, retainedKeyIDs: retained, using: random)
        try await store.storeNewSenderKey(OwnSenderKey(channelID: channel.id, keyID: state.keyID, state: state.serialized(), isCurrent: true,
                                                       messagesSent: 0, createdAt: now()))
        return (state, [], true)
    }
}

/// Names of the locks around protocol state.
enum LockKeys {
    /// The pairwise session with a remote device.
    static func session(_ deviceID: String) -> String { "session:\(deviceID)" }
    /// Our sender key in a channel.
    static func senderKey(_ channelID: String) -> String { "sender-key:\(channelID)" }
    /// The recipient comparison of a channel (``RecipientGate``).
    static func recipients(_ channelID: String) -> String { "recipients:\(channelID)" }
}
