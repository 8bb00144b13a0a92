import E2EEKeyStore

extension Account {
    /// The one way in for posted messages, whatever brought them — a socket frame, a catch-up
    /// page, an older page, ``ingest(_:channelID:)`` — in one order: our own messages matched
    /// with the outbox first (user *and* device, T19: a re-posted copy claiming our device is
    /// not ours), so that a POST whose answer was lost is recorded before anything judges it;
    /// then the rollback check (docs/spec/protocol.md §3.13: a message of this device the
    /// store does not know); then, in a group, the member comparison for any sender this device
    /// has no standing for yet (``compareStrangers(in:channel:)``); then the pipeline: dedupe,
    /// plan, decryption per sender device, one commit per chunk, events. What is about sync
    /// (cursor marks, the server's removals) stays with the caller.
    /// - Throws: key store errors, the outbox's errors (never for bad input).
    func admit(_ messages: [ServerMessage], channel: ReceivingChannel) async throws -> [ReceiveOutcome] {
        guard !messages.isEmpty else { return [] }
        let ownEchoes = try await noteOwnEchoes(messages)
        try await detectRollback(in: messages, channelID: channel.id)
        await compareStrangers(in: messages, channel: channel)
        return try await pipeline.ingest(messages, channel: channel, ownEchoes: ownEchoes)
    }

    /// The least time between two stranger comparisons of one group.
    static let strangerComparisonInterval = Duration.seconds(10)

    /// A message in a group this device created or accepted from a user it has no member
    /// standing for (never approved, held or declined here: a joiner the last member read did
    /// not see yet) runs the member comparison a send would run before the message is shown
    /// (docs/spec/protocol.md §5.11), so that it shows held, not as a member's. Best effort: when
    /// the server cannot answer, the reader flags the message as not compared yet
    /// (``TimelineItem/senderNotComparedYet``) and the next send or member read compares.
    func compareStrangers(in messages: [ServerMessage], channel: ReceivingChannel) async {
        guard channel.encryption == .senderKeys else { return }
        let own = userID.rawValue
        let senders = Set(messages.compactMap { $0.senderID?.rawValue }).subtracting([own])
        guard !senders.isEmpty else { return }
        let store = self.store
        let strangers = try? await store.briefRead { db -> Bool in
            guard let pin = try store.channelTrustStore.loadPin(channelID: channel.id.rawValue, db),
                  !pin.isDM, pin.standing == .created || pin.standing == .accepted else { return false }
            let standings = try store.channelTrustStore.loadMembers(channelID: channel.id.rawValue, db)
            return senders.contains { standings[$0] == nil || standings[$0]?.state == .gone }
        }
        let now = ContinuousClock.now
        if let last = strangerComparisons[channel.id], now - last < Self.strangerComparisonInterval { return }
        guard strangers == true, let chat = try? await channelDirectory.channel(id: channel.id) else { return }
        strangerComparisons[channel.id] = now
        _ = try? await recipientGate.plan(for: chat, refreshMembers: true)
    }
}
