import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Every link transfer this device sends or receives, running or ended, oldest first
    /// (docs/spec/protocol.md §11.6): its phase, records done of expected, and whether it runs,
    /// failed or is done.
    /// - Throws: key store errors.
    public func transfers() async throws -> [TransferProgress] {
        var reports: [TransferProgress] = []
        for state in try await store.outgoingTransfers() { reports.append(try await progress(of: state)) }
        for state in try await store.incomingTransfers() { reports.append(progress(of: state)) }
        return reports
    }

    /// Cancels the running transfer `id` on this device and tells the other side (a `cancel`
    /// with reason 6, transfer cancelled). What a new device imported stays, labelled.
    /// - Throws: ``MessagingError/unknownTransfer(_:)`` when no transfer of that id runs here; key store errors.
    public func cancelTransfer(_ id: String) async throws {
        let outgoing = try await store.outgoingTransfers().first { $0.transferID == id && $0.status == .running }
        let incoming = try await store.incomingTransfers().first { $0.transferID == id && $0.status == .running }
        guard outgoing != nil || incoming != nil, try await store.cancelStoredTransfer(id), let wireID = try? WireUUID(text: id) else {
            throw MessagingError.unknownTransfer(id)
        }
        if let outgoing {
            try? await store.closeHistorySnapshot(transferID: id)
            _ = try? await sendLinkMessage(.cancel(id: wireID, reason: .transferCancelled), to: DeviceID(outgoing.deviceID),
                                           in: ChannelID(outgoing.channelID))
            // The channel stays: deleting it would hide the cancel from the new device.
        }
        if let incoming {
            _ = try? await sendLinkMessage(.cancel(id: wireID, reason: .transferCancelled), to: DeviceID(incoming.primaryDeviceID),
                                           in: ChannelID(incoming.channelID))
            releaseTransferWaits()
        }
        for report in try await transfers() where report.id == id { broadcaster.publish(.linking(.transfer(report))) }
    }

    /// On a linked device whose transfer failed or was cancelled: goes on without it
    /// (docs/spec/protocol.md §11.1). The app warns first: from now on a contact's key standing
    /// this device decides for itself is **provisional**, and the next trust part that imports
    /// (``retryTransfer(to:history:)`` on the primary) replaces it, surfaced in its import figures.
    /// - Throws: ``MessagingError/unknownTransfer(_:)`` when no transfer failed here or one still
    ///   runs, or the last one completed; key store errors.
    public func skipTransfer() async throws {
        let incoming = try await store.incomingTransfers()
        guard let last = incoming.last, last.status == .failed || last.status == .cancelled, !last.imported1 else {
            throw MessagingError.unknownTransfer(incoming.last?.transferID ?? "none")
        }
        try await store.recordTransferSkipped(at: configuration.now())
    }

    /// Resumes every running transfer after a restart (docs/spec/protocol.md §11.4): each
    /// listens from now on, a new device first takes again what it opened but had not committed.
    func resumeTransfers() async {
        if (try? await primaryIssuer.loadRecord())?.role == .linked { listenForRetriedGrants() }
        guard let outgoing = try? await store.outgoingTransfers(), let incoming = try? await store.incomingTransfers() else { return }
        for state in outgoing where state.status == .running {
            guard let manifest1 = TransferReceiveRun.manifest(state.manifest1) else { continue }
            let machine = TransferSendMachine(state: state, manifest1: manifest1, manifest2: TransferReceiveRun.manifest(state.manifest2))
            let messages = linkMessages()
            backgroundWork.run { [weak self] in await self?.runSending(machine, messages: messages) }
        }
        for state in incoming where state.status == .running {
            let messages = linkMessages()
            backgroundWork.run { [weak self] in await self?.runReceiving(state, messages: messages, resumed: true) }
        }
    }

    /// Publishes where an incoming transfer stands.
    func publishProgress(of state: IncomingTransferState) {
        broadcaster.publish(.linking(.transfer(progress(of: state))))
    }

    /// Publishes where an outgoing transfer stands, with the records the new device has
    /// acknowledged (read from the spool's per-chunk counts).
    func publishProgress(of state: OutgoingTransferState) async {
        let report = (try? await progress(of: state)) ?? sendingProgress(of: state, acknowledgedRecords: nil)
        broadcaster.publish(.linking(.transfer(report)))
    }

    private func progress(of state: OutgoingTransferState) async throws -> TransferProgress {
        guard state.status == .running, let manifest1 = TransferReceiveRun.manifest(state.manifest1) else {
            return sendingProgress(of: state, acknowledgedRecords: nil)
        }
        // Acknowledged records: phase-1 chunks below the highest ack, then phase 2's.
        let c1 = Int(manifest1.chunkCount), ack = Int(state.highestAck)
        var done = try await store.spoolRecordCount(transferID: state.transferID, phase: 1, below: max(0, min(ack - 1, c1)))
        if ack > c1 + 2 { done += try await store.spoolRecordCount(transferID: state.transferID, phase: 2, below: ack - c1 - 2) }
        return sendingProgress(of: state, acknowledgedRecords: done)
    }

    private func sendingProgress(of state: OutgoingTransferState, acknowledgedRecords: Int?) -> TransferProgress {
        let manifest1 = TransferReceiveRun.manifest(state.manifest1), manifest2 = TransferReceiveRun.manifest(state.manifest2)
        let expected = Int(manifest1?.recordCount ?? 0) + Int(manifest2?.recordCount ?? 0)
        let done = state.status == .done ? expected : (acknowledgedRecords ?? 0)
        return TransferProgress(id: state.transferID, direction: .sending(to: DeviceID(state.deviceID)),
                                phase: manifest2 == nil ? 1 : 2, recordsDone: done, recordsExpected: expected,
                                state: Self.progressState(state.status, state.failure))
    }

    private func progress(of state: IncomingTransferState) -> TransferProgress {
        let manifest1 = TransferReceiveRun.manifest(state.manifest1), manifest2 = TransferReceiveRun.manifest(state.manifest2)
        let expected = manifest1.map { Int($0.recordCount) + Int(manifest2?.recordCount ?? 0) }
        return TransferProgress(id: state.transferID, direction: .receiving(from: DeviceID(state.primaryDeviceID)),
                                phase: state.imported1 ? 2 : 1, recordsDone: state.recordsDone, recordsExpected: expected,
                                state: Self.progressState(state.status, state.failure))
    }

    private static func progressState(_ status: TransferStatus, _ failure: String?) -> TransferProgress.State {
        switch status {
        case .running: .running
        case .done: .done
        case .cancelled: .cancelled
        case .failed: .failed(failure ?? "failed")
        }
    }
}
