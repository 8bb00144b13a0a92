import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// A transfer held back before its manifest 1 because this primary's store is behind its
/// file's trust counter (docs/spec/protocol.md §11.3), started when the user confirms.
struct HeldTransferStart: Sendable, Equatable {
    let device: DeviceID
    let transferID: WireUUID
    let channelID: ChannelID
    let history: HistoryScope
}

extension Account {
    /// Runs `decision`, a trust decision the user makes on this device (docs/spec/protocol.md
    /// §11.3): on a primary the file's trust counter is raised first (one save), then the
    /// decision runs, then the store's mirror follows — whether the decision took effect or
    /// threw, so the two stay equal on an honest store. A store later restored from a copy
    /// taken before the decision is then behind its file. On any other device it only runs
    /// `decision`.
    /// - Throws: what `decision` throws; ``MessagingError/primaryFileUnprotected`` or
    ///   ``PrimaryFileError`` when the primary's file cannot be raised (the decision is not made).
    func trustDecision<T: Sendable>(_ decision: () async throws -> T) async throws -> T {
        // Not under the issuing lock, which a renewal holds across its network calls: the file's
        // own gate keeps every save from lowering the counter (``PrimaryIssuer/save(_:to:key:)``).
        let issuer = primaryIssuer
        let raised = try await issuer.raiseFileTrustCounter()
        guard raised else { return try await decision() }
        let result: Result<T, any Error>
        do { result = .success(try await decision()) } catch { result = .failure(error) }
        try await issuer.raiseStoreTrustCounter()
        return try result.get()
    }

    /// On a primary whose store is behind its primary file's trust counter — the store was
    /// restored from an older copy while the file stayed — the trust state this device shows
    /// may lack decisions the user made since (docs/spec/protocol.md §11.3). No transfer sends
    /// its manifest 1 until the user has looked at that state (its channels, members, devices
    /// and contacts' keys, redoing what is missing) and confirms it here: the store takes the
    /// file's counter, and every transfer held meanwhile (``LinkEvent/trustStateUnconfirmed(_:)``)
    /// starts. ``OwnUserKeyStatus/trustStateUnconfirmed`` says whether a confirmation is due.
    /// A transfer held when the app stopped is not started again: ask for it with
    /// ``retryTransfer(to:history:)``. On a primary whose store is not behind, it changes nothing.
    /// - Throws: ``MessagingError/notPrimary`` on a device that is not the primary (or whose
    ///   primary file cannot be opened), key store errors.
    public func confirmTrustState() async throws {
        let issuer = primaryIssuer
        try await locks.withLock(Self.issuingLock) { _ = try await issuer.confirmTrustState() }
        let held = heldTransferStarts
        heldTransferStarts = []
        for start in held {
            startTrustTransfer(to: start.device, transferID: start.transferID, channelID: start.channelID, history: start.history)
        }
    }

    /// Whether a transfer may send its manifest 1 now; when the store is behind its file it is
    /// held (surfaced once per transfer) and `false` is returned.
    func mayStartTransfer(_ start: HeldTransferStart) async -> Bool {
        guard let counters = await primaryIssuer.trustCounters(), counters.storeBehind else { return true }
        if !heldTransferStarts.contains(where: { $0.transferID == start.transferID }) { heldTransferStarts.append(start) }
        broadcaster.publish(.linking(.trustStateUnconfirmed(start.device)))
        return false
    }
}
