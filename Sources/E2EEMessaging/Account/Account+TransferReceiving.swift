import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// On a new device that took a grant: stores the transfer's state, then receives and
    /// imports it from `primary` (docs/spec/protocol.md §11.4–§11.6). `messages` is subscribed
    /// before the grant's `ack(0)` leaves, so nothing the primary answers is missed; a restart
    /// resumes it (``resumeTransfers()``).
    func startTrustReceiving(from primary: DeviceID, transferID: WireUUID, channelID: ChannelID, userKey: [UInt8],
                             messages: AsyncStream<OpenedLinkMessage>) {
        let now = configuration.now().microseconds
        let state = IncomingTransferState(transferID: transferID.text, primaryDeviceID: primary.rawValue, channelID: channelID.rawValue,
                                          userKey: userKey, startedAt: now, progressAt: now,
                                          ackAt: now + TransferTiming.firstWait * TransferTiming.microsecond, ackSeconds: TransferTiming.firstWait)
        listenForRetriedGrants()
        backgroundWork.run { [weak self] in
            guard let self, (try? await self.store.saveIncomingTransfer(state)) != nil else { return }
            await self.runReceiving(state, messages: messages)
        }
    }

    /// Runs a stored incoming transfer: first the opened messages a restart left uncommitted
    /// (kept sealed in their timeline rows), then what arrives, and the acknowledgement timers.
    func runReceiving(_ state: IncomingTransferState, messages: AsyncStream<OpenedLinkMessage>, resumed: Bool = false) async {
        var run = TransferReceiveRun(state: state)
        let inputs = TransferInputs(messages: messages)
        defer { inputs.stop() }
        do {
            if resumed { try await recoverPhases(&run) }
            if run.state.status == .running {
                for (messageID, bytes) in try await store.transferInbox(channelID: state.channelID, senderDeviceID: state.primaryDeviceID) {
                    guard let plaintext = try? LinkPlaintext.decode(bytes) else { continue }
                    try await receive(plaintext, messageID: messageID, &run)
                    if run.state.status != .running { break }
                }
                // The acknowledgement of the last commit before a restart may never have left.
                if resumed, run.state.status == .running, run.state.nextIndex > 0 { try await postAck(run.state) }
            }
            for await input in inputs.stream {
                switch input {
                case .tick:
                    guard try await tickReceiving(&run) else { return }
                case .message(let message):
                    guard message.channel == .transfer, message.channelID.rawValue == run.state.channelID,
                          message.senderDeviceID.rawValue == run.state.primaryDeviceID else { continue }
                    guard run.state.status == .running else { continue }
                    if case .cancel(let id, _) = message.plaintext, id.text == run.state.transferID {
                        await failReceiving(&run, "cancelled by the primary", tellingPrimary: false)
                        continue
                    }
                    try await receive(message.plaintext, messageID: message.messageID.rawValue, &run)
                }
            }
        } catch {
            // Cancelled by the user (``TransferStopped``) or the store failed: the state stays as
            // last saved and a restart resumes what is still running.
        }
    }

    /// One message of the transfer: below `next_index` a duplicate, above it held (at most 16),
    /// at it applied, then whatever it frees from the held ones.
    private func receive(_ plaintext: LinkPlaintext, messageID: String?, _ run: inout TransferReceiveRun) async throws {
        guard let index = TransferReceiveRun.index(of: plaintext, transferID: run.state.transferID) else { return }
        if index < run.state.nextIndex {
            if let messageID { try await store.wipeTransferCopy(messageID: messageID) }
            try await acknowledgeDuplicate(&run)
            return
        }
        if index > run.state.nextIndex {
            guard run.held.count < TransferTiming.heldLimit || run.held[index] != nil else { return }
            run.held[index] = (plaintext, messageID)
            // The first gap since the last progress is acknowledged once: the primary resends its window.
            if !run.gapAcknowledged {
                run.gapAcknowledged = true
                try await sendAck(&run)
            }
            return
        }
        try await apply(plaintext, messageID: messageID, &run)
        while run.state.status == .running, let (following, id) = run.held.removeValue(forKey: run.state.nextIndex) {
            try await apply(following, messageID: id, &run)
        }
    }

    /// Applies the message at `next_index` and commits it with the new index in one
    /// transaction; acknowledges after the commit.
    private func apply(_ plaintext: LinkPlaintext, messageID: String?, _ run: inout TransferReceiveRun) async throws {
        var state = run.state
        let manifest1 = run.manifest1
        let c1 = manifest1?.chunkCount ?? 0
        switch plaintext {
        case .manifest(let manifest) where manifest.phase == .snapshot && manifest1 == nil:
            if let refusal = TransferReceiveRun.refusal(of: manifest, recordsBefore: 0) { return await failReceiving(&run, refusal, tellingPrimary: true) }
            state.manifest1 = try Self.bytes(plaintext)
            try await commit(&run, state, advancing: true, records: nil, count: 0, messageID: messageID)
            if manifest.chunkCount == 0 { try await finishPhase(1, &run) }
        case .manifest(let manifest) where manifest.phase == .changes && manifest1 != nil && run.manifest2 == nil && run.state.imported1:
            if let refusal = TransferReceiveRun.refusal(of: manifest, recordsBefore: run.state.recordsDone) {
                return await failReceiving(&run, refusal, tellingPrimary: true)
            }
            state.manifest2 = try Self.bytes(plaintext)
            try await commit(&run, state, advancing: true, records: nil, count: 0, messageID: messageID)
            if manifest.chunkCount == 0 { try await finishPhase(2, &run) }
        case .chunk(_, let index, let records) where manifest1 != nil:
            let phase = index <= c1 ? 1 : 2
            guard phase == 1 || run.manifest2 != nil else { return await failReceiving(&run, "a chunk before manifest 2", tellingPrimary: true) }
            let count: Int
            do {
                count = try TransferReceiveRun.countRecords(records)
            } catch {
                return await failReceiving(&run, "a record that does not parse", tellingPrimary: true)
            }
            state.recordsDone += count
            guard state.recordsDone <= ProtocolLimits.maxTransferRecords else { return await failReceiving(&run, "too many records", tellingPrimary: true) }
            try await commit(&run, state, advancing: true, records: records, count: count, messageID: messageID)
            #if DEBUG
            configuration.testCrash(at: .chunkCommitted)
            #endif
            try await importTrustIfHeld(phase, &run)
            if index == run.lastIndex(ofPhase: phase) { try await finishPhase(phase, &run) }
        default:
            await failReceiving(&run, "a transfer message out of order", tellingPrimary: true)
            return
        }
        if run.state.status == .running { try await sendAck(&run) }
    }

    private func commit(_ run: inout TransferReceiveRun, _ state: IncomingTransferState, advancing: Bool, records: SecretBytes?, count: Int,
                        messageID: String?) async throws {
        var next = state
        if advancing {
            let now = configuration.now().microseconds
            next.nextIndex += 1
            next.progressAt = now
            next.ackSeconds = TransferTiming.firstWait
            next.ackAt = now + TransferTiming.firstWait * TransferTiming.microsecond
            next.idleAcks = 0
            run.gapAcknowledged = false
        }
        try await store.commitTransferMessage(next, index: state.nextIndex, records: records, recordCount: count, messageID: messageID)
        run.state = next
        publishProgress(of: next)
    }

    /// After a restart: a phase whose last message committed before the process died, but
    /// whose check or import did not run, is finished now (the import is one transaction with
    /// its flag, so it never runs twice).
    private func recoverPhases(_ run: inout TransferReceiveRun) async throws {
        guard run.state.status == .running, let manifest1 = run.manifest1 else { return }
        try await importTrustIfHeld(1, &run)
        // Until manifest 2 commits, phase 1's end may not have run to completion (its check, its
        // history): it runs again — each of its steps changes nothing a second time.
        if run.manifest2 == nil, run.state.nextIndex >= manifest1.chunkCount + 1 { try await finishPhase(1, &run) }
        guard run.state.status == .running, let manifest2 = run.manifest2 else { return }
        try await importTrustIfHeld(2, &run)
        if run.state.nextIndex >= manifest1.chunkCount + 2 + manifest2.chunkCount { try await finishPhase(2, &run) }
    }

    /// §11.5: a phase's trust part commits once its `trust_count` records are held (a phase
    /// of trust records alone is checked whole first, in ``finishPhase(_:_:)``).
    private func importTrustIfHeld(_ phase: Int, _ run: inout TransferReceiveRun) async throws {
        guard let manifest = run.manifest(phase), !(phase == 1 ? run.state.imported1 : run.state.imported2),
              manifest.trustCount < manifest.recordCount, run.recordsHeld(inPhase: phase) >= Int(manifest.trustCount) else { return }
        try await importTrust(phase, &run)
    }

    private func importTrust(_ phase: Int, _ run: inout TransferReceiveRun) async throws {
        guard let manifest = run.manifest(phase) else { return }
        var state = run.state
        if phase == 1 { state.imported1 = true } else { state.imported2 = true }
        do {
            let (saved, _) = try await store.importTransferTrust(state, indexes: run.chunkRange(ofPhase: phase), trustCount: Int(manifest.trustCount),
                                                                 now: configuration.userKeyClock())
            run.state = saved
            await directory.invalidate()
            // Messages from other users waited for these decisions (§11.1): now they are read.
            if phase == 1 { releaseTransferWaits() }
        } catch is TransferStopped {
            throw TransferStopped()
        } catch {
            await failReceiving(&run, "the trust part did not import", tellingPrimary: true)
        }
    }

    /// §11.9: a phase's history — its message and deleted records, after its trust records —
    /// is imported once the phase's count and digest matched, chunk by chunk, each in one
    /// transaction; a chunk imported again (a restart) changes nothing.
    private func importHistory(ofPhase phase: Int, _ run: inout TransferReceiveRun) async throws {
        guard run.state.status == .running, let manifest = run.manifest(phase), manifest.trustCount < manifest.recordCount,
              let range = run.chunkRange(ofPhase: phase) else { return }
        do {
            for index in range {
                _ = try await store.importHeldHistory(transferID: run.state.transferID, index: index, from: run.state.primaryDeviceID)
            }
        } catch {
            await failReceiving(&run, "the history did not import", tellingPrimary: true)
        }
    }

    /// §11.6: a phase whose chunks are all held is checked (count, digest) and its trust part
    /// imported if it was not yet; phase 2's end is the transfer's.
    private func finishPhase(_ phase: Int, _ run: inout TransferReceiveRun) async throws {
        guard let manifest = run.manifest(phase) else { return }
        var digest = TransferDigest()
        var count = 0
        if let range = run.chunkRange(ofPhase: phase) {
            for index in range {
                guard let records = try await store.receivedChunk(transferID: run.state.transferID, index: index) else {
                    return await failReceiving(&run, "a chunk is missing", tellingPrimary: true)
                }
                var decoder = TransferRecordDecoder(records: records)
                while try decoder.next(updating: &digest) != nil { count += 1 }
            }
        }
        guard count == Int(manifest.recordCount) else {
            return await failReceiving(&run, "\(count) records in phase \(phase), the manifest says \(manifest.recordCount)", tellingPrimary: true)
        }
        guard ConstantTime.equals(digest.digest, manifest.digest) else {
            return await failReceiving(&run, "the digest of phase \(phase) does not match its manifest", tellingPrimary: true)
        }
        if !(phase == 1 ? run.state.imported1 : run.state.imported2) { try await importTrust(phase, &run) }
        try await importHistory(ofPhase: phase, &run)
        guard phase == 2, run.state.status == .running else { return }
        var done = run.state
        done.status = .done
        try await store.endIncomingTransfer(done)
        run.state = done
        // Reported once the last acknowledgement is queued: an app (or the tool) that stops at
        // the news still sends it.
        try await postAck(done)
        broadcaster.publish(.linking(.trustTransferred(applied: done.applied, conflicts: done.conflicts, skipped: done.skipped)))
        publishProgress(of: done)
    }

    /// The timers: 7 days in all or 24 hours without progress fail the transfer; without
    /// progress an acknowledgement goes after 60 s doubling to 1 h, at most 10 times (after the
    /// end too, until the primary deletes the channel, so a lost last acknowledgement is sent
    /// again). `false` once there is nothing more to do.
    private func tickReceiving(_ run: inout TransferReceiveRun) async throws -> Bool {
        let now = configuration.now().microseconds
        let second = TransferTiming.microsecond
        if run.state.status == .running {
            guard try await stillRunning(run.state.transferID, outgoing: false) else { return false }
            if now - run.state.startedAt > TransferTiming.totalLimit * second {
                await failReceiving(&run, "the transfer took over 7 days", tellingPrimary: true)
                return false
            }
            if now - run.state.progressAt > TransferTiming.stallLimit * second {
                await failReceiving(&run, "24 hours without progress", tellingPrimary: true)
                return false
            }
        } else if run.state.status != .done {
            return false
        }
        guard now >= run.state.ackAt else { return true }
        guard run.state.idleAcks < TransferTiming.idleAckLimit else { return run.state.status == .running }
        if run.state.status == .done, !(try await transferChannelListed(run.state.channelID)) { return false }
        run.state.idleAcks += 1
        run.state.ackSeconds = TransferTiming.doubled(run.state.ackSeconds)
        run.state.ackAt = now + run.state.ackSeconds * second
        if run.state.status == .running { try await store.saveIncomingTransfer(run.state) }
        try await postAck(run.state)
        return true
    }

    /// Acknowledges a duplicate, at most once a minute.
    private func acknowledgeDuplicate(_ run: inout TransferReceiveRun) async throws {
        let now = configuration.now().microseconds
        if let last = run.state.duplicateAckAt, now - last < TransferTiming.repeatSpacing * TransferTiming.microsecond { return }
        run.state.duplicateAckAt = now
        if run.state.status == .running { try await store.saveIncomingTransfer(run.state) }
        try await postAck(run.state)
    }

    private func sendAck(_ run: inout TransferReceiveRun) async throws {
        try await postAck(run.state)
    }

    /// `ack(next_index)` to the primary — each a new encryption.
    private func postAck(_ state: IncomingTransferState) async throws {
        guard let id = try? WireUUID(text: state.transferID) else { return }
        _ = try? await sendLinkMessage(.ack(transferID: id, nextIndex: state.nextIndex), to: DeviceID(state.primaryDeviceID),
                                       in: ChannelID(state.channelID))
    }

    private func transferChannelListed(_ channelID: String) async throws -> Bool {
        guard let channels = try? await api.channels() else { return true }
        return channels.contains { $0.id.rawValue == channelID }
    }

    /// Fails the transfer on this side (what was imported stays, labelled) and, unless the
    /// primary ended it, tells the primary.
    private func failReceiving(_ run: inout TransferReceiveRun, _ reason: String, tellingPrimary: Bool) async {
        var failed = run.state
        failed.status = .failed
        failed.failure = reason
        guard (try? await store.endIncomingTransfer(failed)) != nil else { return }
        run.state = failed
        run.held = [:]
        if tellingPrimary, let id = try? WireUUID(text: failed.transferID) {
            _ = try? await sendLinkMessage(.cancel(id: id, reason: .outOfOrder), to: DeviceID(failed.primaryDeviceID), in: ChannelID(failed.channelID))
        }
        broadcaster.publish(.linking(.transferFailed(reason: reason)))
        publishProgress(of: failed)
        releaseTransferWaits()
    }

    /// Re-drives the messages that waited for a trust part (`transfer:<id>`, §11.1) — it
    /// committed, or the transfer ended without it and the normal rules apply — in the
    /// background (the receive pipeline admits it after the batch running now).
    func releaseTransferWaits() {
        backgroundWork.run { [weak self] in _ = try? await self?.pipeline.redrivePending() }
    }
}
