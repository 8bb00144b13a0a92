import E2EECrypto
import E2EEKeyStore

extension Account {
    /// Before anything is encrypted for `channelID` (docs/spec/protocol.md §3, "Detecting a rollback"):
    /// the channel is caught up once by this process (a restored store learns here what a later
    /// copy of it sent), and when a rollback was detected anywhere, sessions, sender keys and
    /// prekeys are renewed first.
    /// `waitingOutRateLimits`: a 429 met on the way is waited out as `Retry-After` asks (the
    /// outbox, in the background); a caller the app awaits (`send`, `retry`) passes `false`,
    /// gets the 429 at once, and leaves the message queued for the outbox.
    /// - Throws: ``ServerError`` when the channel cannot be caught up or the new keys cannot be
    ///   published (nothing is encrypted then), key store errors.
    func prepareToSend(channelID: ChannelID, waitingOutRateLimits: Bool = true) async throws {
        try await syncEngine.catchUpBeforeFirstSend(channelID: channelID, waitingOutRateLimits: waitingOutRateLimits)
        try await renewKeysIfRolledBack()
    }

    /// Records a rollback found in `messages` of `channelID` (before they are ingested, so a
    /// kill cannot lose the evidence) and surfaces it.
    /// - Throws: key store errors.
    func detectRollback(in messages: [ServerMessage], channelID: ChannelID) async throws {
        guard let evidence = try await RollbackDetector(store: store, device: device).evidence(in: messages, channelID: channelID) else { return }
        try await store.markRolledBack(at: configuration.now())
        broadcaster.publish(.rollbackDetected(channelID: channelID, messageID: evidence.id))
        // A link transfer does not survive it (§11.4): it fails on both sides, in the background
        // (its cancel is a send, which waits for this catch-up and the renewal).
        backgroundWork.run { [weak self] in await self?.failTransfersAfterRollback() }
    }

    /// When the store is marked rolled back: every pairwise session removed (new ones with X3DH
    /// on the next send), every sender key retired (a new one, distributed again, on the next
    /// group send), a new signed prekey and all one-time prekeys replaced and published; then
    /// the renewal's time is recorded (every unread range going with it) and the mark is cleared.
    /// A failure leaves the mark, so the next send tries again.
    /// - Throws: ``ServerError`` from the upload, key store errors.
    func renewKeysIfRolledBack() async throws {
        guard try await store.rollbackDetectedAt() != nil else { return }
        let store = self.store
        let keys = self.keys
        let target = configuration.oneTimePrekeyTarget
        let events = broadcaster
        let now = configuration.now
        try await rollbackRenewal.renewOnce {
            guard try await store.rollbackDetectedAt() != nil else { return }
            _ = try await store.retireKeysAfterRollback()
            let uploaded = try await keys.replaceAllPrekeys(oneTimePrekeys: target)
            try await store.recordKeysRenewed(at: now())  // unread ranges go: their evidence is moot now
            try await store.clearRollbackMark()
            events.publish(.keyMaintenance(KeyMaintenanceReport(oneTimePrekeysUploaded: uploaded, signedPrekeyRotated: true)))
        }
    }
}
