import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Why a transfer ends when a rollback is found on this device.
    static let transferRollbackFailure = "a rollback was found on this device (§3.14)"

    /// A rollback found on this device (docs/spec/protocol.md §3.14, §11.4) fails every transfer
    /// it sends or receives, on both sides: each is ended here as failed and the other side is
    /// told (`cancel`, reason 6), in the new sessions §3.12 starts before anything is sent. The
    /// keys a later copy of this store may have used are retired, and a transfer's stored
    /// envelopes and acknowledgements belong to the copy's view: the user retries
    /// (``retryTransfer(to:history:)`` on the primary), which starts a new transfer.
    func failTransfersAfterRollback() async {
        let reason = Self.transferRollbackFailure
        if let outgoing = try? await store.outgoingTransfers() {
            for var state in outgoing where state.status == .running {
                state.status = .failed
                state.failure = reason
                // A run still going finds the state ended at its next write and stops.
                guard (try? await store.endOutgoingTransfer(state)) != nil else { continue }
                try? await store.closeHistorySnapshot(transferID: state.transferID)
                if let id = try? WireUUID(text: state.transferID) {
                    _ = try? await sendLinkMessage(.cancel(id: id, reason: .transferCancelled), to: DeviceID(state.deviceID),
                                                   in: ChannelID(state.channelID))
                }
                broadcaster.publish(.linking(.transferFailed(reason: reason)))
                await publishProgress(of: state)
            }
        }
        if let incoming = try? await store.incomingTransfers() {
            for var state in incoming where state.status == .running {
                state.status = .failed
                state.failure = reason
                guard (try? await store.endIncomingTransfer(state)) != nil else { continue }
                if let id = try? WireUUID(text: state.transferID) {
                    _ = try? await sendLinkMessage(.cancel(id: id, reason: .transferCancelled), to: DeviceID(state.primaryDeviceID),
                                                   in: ChannelID(state.channelID))
                }
                broadcaster.publish(.linking(.transferFailed(reason: reason)))
                publishProgress(of: state)
                releaseTransferWaits()
            }
        }
    }
}
