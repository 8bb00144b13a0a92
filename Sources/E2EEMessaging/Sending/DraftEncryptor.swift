import E2EEKeyStore

/// Encrypts a draft the outbox holds without content (queued while the server could not be
/// reached for the channel's members or devices): the same path as a fresh send, replacing
/// the draft under its local id (docs/spec/protocol.md §4, §5 through ``OutgoingComposer``).
struct DraftEncryptor: Sendable {
    let composer: OutgoingComposer
    let channels: ChannelDirectory
    /// The check every encryption runs first (catch-up by this process, renewal after a rollback).
    let preparation: SendPreparation

    /// The encrypted entry that replaced `draft` (queued at the end of its channel's order).
    /// Like a fresh send, it first catches the channel up if this process has not yet and renews
    /// the keys after a detected rollback (docs/spec/protocol.md §3); while that cannot reach the
    /// server, the draft keeps waiting.
    /// - Throws: as ``OutgoingComposer/queue(_:in:)``, ``MessagingError/unknownChannel(_:)``,
    ///   ``ServerError`` from the catch-up.
    func encrypt(_ draft: OutboxMessage) async throws -> OutboxMessage {
        try await preparation.run(channelID: ChannelID(stored: draft.channelID))
        let channel = try await channels.channel(id: ChannelID(stored: draft.channelID))
        return try await composer.queue(.init(localID: OutboxEntryID(stored: draft.localID), payload: draft.plaintext, kind: draft.kind, target: draft.targetMessageID,
                                              replacesDraft: true), in: channel)
    }
}
