import Foundation
@_spi(StoreInternals) import E2EEKeyStore
import E2EECrypto

extension Account {
    /// Our user's devices channel (docs/spec/protocol.md §10.22): the oldest `e2ee-devices`
    /// channel our own user created — any other is not ours to use — or, when there is none
    /// and `create` is set, a new one (`is_dm` false, `x3dh`), subscribed at once.
    /// - Throws: ``ServerError``, key store errors.
    func devicesChannel(create: Bool) async throws -> ChannelID? {
        if let known = try await ownLinkChannel(.devices) { return known }
        _ = try await refreshAllChannels()
        if let listed = try await ownLinkChannel(.devices) { return listed }
        guard create else { return nil }
        let channel = try await channelDirectory.remember(try await api.createLinkChannel(name: LinkChannel.devicesName))
        await supervisor?.subscribe(channelID: channel.id)
        return channel.id
    }

    /// The oldest stored link channel of `kind` our own user created.
    private func ownLinkChannel(_ kind: LinkChannel) async throws -> ChannelID? {
        let own = userID.rawValue
        let records = try await store.read { [store] db in try store.channelStore.loadChannels(db) }
        return records.filter { LinkChannel.kind(of: $0, ownUserID: own) == kind }
            .min { ($0.createdAt.microseconds, $0.id) < ($1.createdAt.microseconds, $1.id) }
            .map { ChannelID(stored: $0.id) }
    }

    /// Queues `plaintext` as a link envelope to our own device `deviceID` in the link channel
    /// `channelID` and starts sending it (docs/spec/protocol.md §10.22). The device must be one
    /// our own listing shows with a verified bundle, trusted here or not (a new device links
    /// before anything trusts it).
    /// - Throws: ``MessagingError/unknownRecipient(deviceID:)`` for a device our listing does
    ///   not show or that this primary removed, ``MessagingError/encryptionFailed(_:)``, ``ServerError`` (also from the
    ///   renewal of keys after a rollback, docs/spec/protocol.md §3.12), key store errors.
    /// Returns the queued entry (its `content` is the envelope a resend posts again).
    @discardableResult
    func sendLinkMessage(_ plaintext: LinkPlaintext, to deviceID: DeviceID, in channelID: ChannelID) async throws -> OutboxMessage {
        // A device the primary removed gets nothing more: no recert, no transfer (§10.14).
        guard !primaryIssuer.isRemoved(deviceID.rawValue) else { throw MessagingError.unknownRecipient(deviceID: deviceID) }
        var target = try await directory.devices(of: userID).first { $0.deviceID == deviceID }
        if target == nil { target = try await directory.devices(of: userID, refresh: true).first { $0.deviceID == deviceID } }
        guard let target else { throw MessagingError.unknownRecipient(deviceID: deviceID) }
        // §3.12 holds for link messages too: after a rollback nothing leaves before the keys are
        // renewed, so the other device hears of it in a new session — never in one this store
        // has dropped, which would leave every answer of the other device undecryptable here.
        try await renewKeysIfRolledBack()
        let entry = try await composer.queueLinkMessage(plaintext, to: target, in: channelID)
        await outbox.kick(channelID: ChannelID(stored: entry.channelID))
        return entry
    }

    /// Posts a stored link envelope again (docs/spec/protocol.md §10.11 step 5: the grant every
    /// 60 s until it is acknowledged): the same bytes, queued through the outbox as a new entry
    /// so the post is recorded as ours (§3.13); no ratchet moves, and the recipient takes the
    /// copy as a duplicate (§6.6) when it already has one.
    /// - Throws: key store errors.
    func resendLinkEnvelope(_ content: String, in channelID: ChannelID) async throws {
        let entry = try await store.queueOutgoingMessage(OutgoingCommit(
            localID: UUID().uuidString.lowercased(), channelID: channelID.rawValue, content: content, plaintext: SecretBytes(copying: []),
            queuedAt: configuration.now(), kind: .skd, contentType: LinkEnvelope.contentType))
        await outbox.kick(channelID: ChannelID(stored: entry.channelID))
    }

    /// Every link message this device opens from now on, once committed (what a link step
    /// listens to, docs/spec/protocol.md §10.10).
    nonisolated func linkMessages() -> AsyncStream<OpenedLinkMessage> {
        pipeline.linkInbox.messages()
    }
}

extension Account {
    /// A new transfer channel (docs/spec/protocol.md §10.22), subscribed at once.
    /// - Throws: ``ServerError``, key store errors.
    func createTransferChannel() async throws -> ChannelID {
        let channel = try await channelDirectory.remember(try await api.createLinkChannel(name: LinkChannel.transferName))
        await supervisor?.subscribe(channelID: channel.id)
        return channel.id
    }
}
