import E2EEKeyStore

extension Account {
    /// The one way in for posted messages, whatever brought them — a socket frame, a catch-up
    /// page, an older page, ``ingest(_:channelID:)`` — in one order: our own messages matched
    /// with the outbox first (user *and* device, T19: a re-posted copy claiming our device is
    /// not ours), so that a POST whose answer was lost is recorded before anything judges it;
    /// then the rollback check (docs/spec/protocol.md §3.13: a message of this device the
    /// store does not know); then the pipeline: dedupe, plan, decryption per sender device,
    /// one commit per chunk, events. What is about sync (cursor marks, the server's removals)
    /// stays with the caller.
    /// - Throws: key store errors, the outbox's errors (never for bad input).
    func admit(_ messages: [ServerMessage], channel: ReceivingChannel) async throws -> [ReceiveOutcome] {
        guard !messages.isEmpty else { return [] }
        let ownEchoes = try await noteOwnEchoes(messages)
        try await detectRollback(in: messages, channelID: channel.id)
        return try await pipeline.ingest(messages, channel: channel, ownEchoes: ownEchoes)
    }
}
