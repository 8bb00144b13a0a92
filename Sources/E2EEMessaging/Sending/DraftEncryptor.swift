import E2EEKeyStore

/// Encrypts a draft the outbox holds without content (queued while the server could not be
/// reached for the channel's members or devices): the same path as a fresh send, replacing
/// the draft under its local id (PROTOCOL.md §4, §5 through ``OutgoingComposer``).
struct DraftEncryptor: Sendable {
    let composer: OutgoingComposer
    let channels: ChannelDirectory
    let store: KeyStore
    /// Which channels this process caught up (PROTOCOL.md §3, "Detecting a rollback").
    let rollbackGuard: RollbackGuard

    /// The encrypted entry that replaced `draft` (queued at the end of its channel's order).
    /// Nothing is encrypted for a channel this process has not caught up yet, nor while a
    /// detected rollback waits for its key renewal (PROTOCOL.md §3): the draft then keeps
    /// waiting, as for an unreachable server, until the next catch-up the server answers.
    /// - Throws: as ``OutgoingComposer/queue(_:in:)``, ``MessagingError/unknownChannel(_:)``,
    ///   ``ServerError/transport(_:)`` while the channel waits for its catch-up.
    func encrypt(_ draft: OutboxMessage) async throws -> OutboxMessage {
        guard await rollbackGuard.isCaughtUp(draft.channelID), try await store.rollbackDetectedAt() == nil else {
            throw ServerError.transport("waiting for a catch-up of this channel before encrypting")
        }
        let channel = try await channels.channel(id: draft.channelID)
        return try await composer.queue(.init(localID: draft.localID, payload: draft.plaintext, kind: draft.kind, target: draft.targetMessageID,
                                              replacesDraft: true), in: channel)
    }
}
