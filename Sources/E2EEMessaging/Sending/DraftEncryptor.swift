import E2EEKeyStore

/// Encrypts a draft the outbox holds without content (queued while the server could not be
/// reached for the channel's members or devices): the same path as a fresh send, replacing
/// the draft under its local id (PROTOCOL.md §4, §5 through ``OutgoingComposer``).
struct DraftEncryptor: Sendable {
    let composer: OutgoingComposer
    let channels: ChannelDirectory

    /// The encrypted entry that replaced `draft` (queued at the end of its channel's order).
    /// - Throws: as ``OutgoingComposer/queue(_:in:)``, ``MessagingError/unknownChannel(_:)``.
    func encrypt(_ draft: OutboxMessage) async throws -> OutboxMessage {
        let channel = try await channels.channel(id: draft.channelID)
        return try await composer.queue(.init(localID: draft.localID, payload: draft.plaintext, kind: draft.kind, target: draft.targetMessageID,
                                              replacesDraft: true), in: channel)
    }
}
