import E2EECrypto
import E2EEKeyStore

extension Account {
    /// Cancels an outbox entry that has not gone out (`.queued`, including one waiting for an
    /// unreachable server, or `.failed`): it is removed with its plaintext and never posted, and
    /// its local echo leaves the timeline (``TimelineChange/Kind/localEcho``). Returns the
    /// removed entry as it was.
    /// - Throws: ``MessagingError/unknownOutboxEntry(_:)`` when there is no such entry, or it is
    ///   being sent or already sent; key store errors.
    @discardableResult
    public func cancelOutboxEntry(_ localID: OutboxEntryID) async throws -> OutboxItem {
        do {
            let entry = try await store.cancelOutboxEntry(localID: localID.rawValue)
            broadcaster.publishCancelled(entry)
            return OutboxItem(entry)
        } catch KeyStoreError.missingRecord, KeyStoreError.invalidTransition {
            throw MessagingError.unknownOutboxEntry(localID.rawValue)
        }
    }

    /// Tries every entry waiting for an unreachable server now (the app learned the network is
    /// back); the outbox also does this by itself after each catch-up the server answers.
    /// - Throws: key store errors.
    public func resumeOutbox() async throws {
        await outbox.serverAnswered()
        try await outbox.resumeAll()
    }

    /// Sends what another process queued on this account's store since the last look: a
    /// command-line `send` that found the server away, an app extension sharing the store.
    /// The outbox reads the store only for its own work, so a process that keeps the account
    /// open (a listener) calls this every fraction of a second; it costs one indexed read. A
    /// new `.queued` entry is taken once it has rested `settle` (the process that queued it
    /// marks it `.sending` within milliseconds when it sends it itself); a channel where any
    /// process is sending, or that waits here for the server, is left to that sending.
    /// - Throws: key store errors.
    public func sendEntriesQueuedElsewhere(settle: Duration = .milliseconds(300)) async throws {
        try await outbox.adoptEntriesQueuedElsewhere(olderThan: settle)
    }

    /// A message queued unencrypted while its channel waits for the server (docs/spec/sync.md "Outbox").
    /// With `tryNow` false (the server is away) the channel waits for the server to answer
    /// instead of trying at once.
    func queueWaitingDraft(localID: OutboxEntryID, payload: SecretBytes, channelID: ChannelID, kind: OutboxKind, target: String?,
                           reason: String, tryNow: Bool = true) async throws -> OutboxMessage {
        let draft = try await store.storeWaitingDraft(localID: localID.rawValue, channelID: channelID.rawValue, plaintext: payload, kind: kind,
                                                      targetMessageID: target, error: reason, at: configuration.now())
        broadcaster.publishDelivery(of: draft, .queued, isNew: true)
        if tryNow {
            await outbox.kick(channelID: channelID)
        } else {
            await outbox.waitForServer(channelID: channelID)
        }
        return draft
    }
}
