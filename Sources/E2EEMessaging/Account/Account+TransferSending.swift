import Foundation
import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// On the primary, once `device` acknowledged its grant: takes the snapshot into the sealed
    /// spool, stores the transfer's state and sends it in the channel `channelID`
    /// (docs/spec/protocol.md §11.1–§11.4), in the background until the last acknowledgement,
    /// then deletes the channel. A restart resumes it (``resumeTransfers()``).
    func startTrustTransfer(to device: DeviceID, transferID: WireUUID, channelID: ChannelID, history: HistoryScope = .default) {
        let messages = linkMessages()
        backgroundWork.run { [weak self] in
            // A store behind its file's trust counter sends no manifest until the user confirms (§11.3).
            guard let self, await self.mayStartTransfer(HeldTransferStart(device: device, transferID: transferID, channelID: channelID, history: history)),
                  let machine = await self.beginSending(to: device, transferID: transferID, channelID: channelID, history: history) else { return }
            await self.runSending(machine, messages: messages)
        }
    }

    /// The trust records of a snapshot: the store's, our own kept devices carrying the
    /// certificate this primary's file logged for them (the store knows only what listings verified).
    func transferTrustRecords() async throws -> [TrustRecord] {
        let snapshot = try await store.trustSnapshot()
        let kept = await primaryIssuer.keptCertificates()
        return snapshot.records.map { record -> TrustRecord in
            guard case .deviceWithoutCertificate(let user, let id, let identity, _) = record, user.text == userID.rawValue,
                  let logged = kept[id.text], logged.identity == identity else { return record }
            return .ownDevice(deviceID: id, identity: identity, certificate: logged.certificate)
        }
    }

    private func beginSending(to device: DeviceID, transferID: WireUUID, channelID: ChannelID, history: HistoryScope) async -> TransferSendMachine? {
        do {
            let records = try await transferTrustRecords()
            // The trust part, then the history the user chose (§11.7), in one snapshot.
            let spooled = try await store.spoolSnapshot(transferID: transferID.text, trust: records, window: history.window(now: Date()),
                                                        recordsPerChunk: recordsPerChunk, now: configuration.now())
            let summary = spooled.summary
            let manifest = try TransferManifest(transferID: transferID, index: 0, phase: .snapshot, trustCount: summary.trustCount,
                                                recordCount: summary.recordCount, chunkCount: summary.chunkCount, truncated: spooled.truncated,
                                                digest: summary.digest)
            let now = configuration.now().microseconds
            let state = OutgoingTransferState(transferID: transferID.text, deviceID: device.rawValue, channelID: channelID.rawValue,
                                              manifest1: try Self.bytes(.manifest(manifest)), startedAt: now, progressAt: now,
                                              timeoutAt: now + TransferTiming.firstWait * TransferTiming.microsecond,
                                              timeoutSeconds: TransferTiming.firstWait)
            try await store.saveOutgoingTransfer(state)
            return TransferSendMachine(state: state, manifest1: manifest, manifest2: nil)
        } catch {
            broadcaster.publish(.linking(.transferFailed(reason: "the snapshot could not be stored")))
            return nil
        }
    }

    /// Runs a stored transfer to its end: acknowledgements from the granted device move it,
    /// timers resend and bound it.
    func runSending(_ start: TransferSendMachine, messages: AsyncStream<OpenedLinkMessage>) async {
        var machine = start
        let inputs = TransferInputs(messages: messages)
        defer { inputs.stop() }
        do {
            try await sendDue(machine.due(), &machine)
            await publishProgress(of: machine.state)
            for await input in inputs.stream {
                let now = configuration.now().microseconds
                var actions: TransferSendMachine.Actions
                let acknowledgedBefore = machine.state.highestAck
                switch input {
                case .tick:
                    guard try await stillRunning(machine.state.transferID, outgoing: true) else { return }
                    actions = machine.tick(now: now)
                case .message(let message):
                    guard message.channel == .transfer, message.channelID.rawValue == machine.state.channelID,
                          message.senderDeviceID.rawValue == machine.state.deviceID else { continue }
                    switch message.plaintext {
                    case .ack(let id, let next) where id.text == machine.state.transferID:
                        actions = machine.acknowledged(next, now: now)
                    case .cancel(let id, _) where id.text == machine.state.transferID:
                        actions = .init(failure: "cancelled by the new device")
                    default:
                        continue
                    }
                }
                if let failure = actions.failure {
                    await endSending(&machine, .failed, failure: failure, tellingNewDevice: input.isTick)
                    return
                }
                if actions.complete {
                    await endSending(&machine, .done, failure: nil, tellingNewDevice: false)
                    return
                }
                for index in actions.resend { try await resend(index, machine.state) }
                if actions.fixPhase2 { try await fixPhase2(&machine) }
                // What the window allows now (phase 2 just fixed adds its messages).
                try await sendDue(machine.due(), &machine)
                try await store.saveOutgoingTransfer(machine.state)
                if !actions.send.isEmpty || actions.fixPhase2 || machine.state.highestAck != acknowledgedBefore {
                    await publishProgress(of: machine.state)
                }
            }
        } catch {
            // Cancelled by the user (``TransferStopped``) or the store failed: the state stays as
            // last saved and a restart resumes what is still running.
        }
    }

    /// Posts `indexes` for the first time, storing each envelope with the state.
    private func sendDue(_ indexes: [UInt32], _ machine: inout TransferSendMachine) async throws {
        let device = DeviceID(machine.state.deviceID), channel = ChannelID(machine.state.channelID)
        for index in indexes {
            let plaintext = try await transferMessage(index, machine)
            let posted = try await sendLinkMessage(plaintext, to: device, in: channel)
            machine.sent(index, now: configuration.now().microseconds)
            try await store.recordTransferSent(machine.state, index: index, content: posted.content)
        }
    }

    /// Posts the stored envelope of `index` again (no ratchet moves; a copy the new device has
    /// is a duplicate there).
    private func resend(_ index: UInt32, _ state: OutgoingTransferState) async throws {
        guard let content = try await store.transferEnvelope(transferID: state.transferID, index: index) else { return }
        try await resendLinkEnvelope(content, in: ChannelID(state.channelID))
    }

    /// The message at `index` (§11.4's index space), read from the spool.
    private func transferMessage(_ index: UInt32, _ machine: TransferSendMachine) async throws -> LinkPlaintext {
        let transferID = try WireUUID(text: machine.state.transferID)
        let c1 = machine.phase1Chunks
        if index == 0 { return try LinkPlaintext.decode(SecretBytes(copying: machine.state.manifest1)) }
        if index == c1 + 1, let manifest2 = machine.state.manifest2 { return try LinkPlaintext.decode(SecretBytes(copying: manifest2)) }
        let (phase, chunk) = index <= c1 ? (1, Int(index) - 1) : (2, Int(index - c1) - 2)
        guard let records = try await store.spoolChunk(transferID: machine.state.transferID, phase: phase, chunk: chunk) else {
            throw KeyStoreError.missingRecord(.account, id: "transfer spool \(index)")
        }
        return .chunk(transferID: transferID, index: index, records: records)
    }

    /// Fixes phase 2 (§11.4): the trust records that changed since the snapshot — those a new
    /// snapshot holds that phase 1 did not — spooled after it.
    private func fixPhase2(_ machine: inout TransferSendMachine) async throws {
        var sent = Set<[UInt8]>()
        for chunk in 0..<Int(machine.phase1Chunks) {
            guard let records = try await store.spoolChunk(transferID: machine.state.transferID, phase: 1, chunk: chunk) else { continue }
            var decoder = TransferRecordDecoder(records: records)
            // Trust records only: the history's changes come from its own log, and a hash per
            // message record would grow with the history.
            while let record = try decoder.next() {
                guard case .trust = record else { continue }
                sent.insert(SHA256.hash(record.encoded()))
            }
        }
        let changed = try await transferTrustRecords().filter { !sent.contains($0.transferBytesDigest) }
        // The trust records that changed, then the history's deletions, edits and arrivals since the mark.
        let spooled = try await store.spoolChanges(transferID: machine.state.transferID, trust: changed, recordsPerChunk: recordsPerChunk)
        let summary = spooled.summary
        let manifest = try TransferManifest(transferID: try WireUUID(text: machine.state.transferID), index: machine.manifest2Index,
                                            phase: .changes, trustCount: summary.trustCount, recordCount: summary.recordCount,
                                            chunkCount: summary.chunkCount, truncated: spooled.truncated, digest: summary.digest)
        _ = machine.phase2Fixed(manifest, encoded: try Self.bytes(.manifest(manifest)))
        try await store.saveOutgoingTransfer(machine.state)
    }

    private func endSending(_ machine: inout TransferSendMachine, _ status: TransferStatus, failure: String?, tellingNewDevice: Bool) async {
        machine.end(status, failure: failure)
        guard (try? await store.endOutgoingTransfer(machine.state)) != nil else { return }
        // The history's change log for this transfer ends with it.
        try? await store.closeHistorySnapshot(transferID: machine.state.transferID)
        let device = DeviceID(machine.state.deviceID), channel = ChannelID(machine.state.channelID)
        if tellingNewDevice, let id = try? WireUUID(text: machine.state.transferID) {
            _ = try? await sendLinkMessage(.cancel(id: id, reason: .expired), to: device, in: channel)
        }
        if status == .done {
            try? await api.deleteChannel(id: channel)
            broadcaster.publish(.linking(.trustSent(to: device)))
        } else if let failure {
            broadcaster.publish(.linking(.transferFailed(reason: failure)))
        }
        await publishProgress(of: machine.state)
    }

    /// Whether the stored transfer still runs (the user may have cancelled it).
    func stillRunning(_ transferID: String, outgoing: Bool) async throws -> Bool {
        if outgoing { return try await store.outgoingTransfers().first { $0.transferID == transferID }?.status == .running }
        return try await store.incomingTransfers().first { $0.transferID == transferID }?.status == .running
    }

    /// Records per chunk: as many as fit, or in debug builds what a test asked.
    private var recordsPerChunk: Int? {
        #if DEBUG
        configuration.debugTransferRecordsPerChunk
        #else
        nil
        #endif
    }

    /// A link plaintext's bytes, as stored.
    static func bytes(_ plaintext: LinkPlaintext) throws -> [UInt8] {
        try plaintext.encoded().withUnsafeBytes { Array($0) }
    }
}

extension TrustRecord {
    /// SHA-256 of the whole transfer record carrying it (how phase 2 tells a changed record).
    var transferBytesDigest: [UInt8] {
        SHA256.hash(TransferRecord.trust(self).encoded())
    }
}
