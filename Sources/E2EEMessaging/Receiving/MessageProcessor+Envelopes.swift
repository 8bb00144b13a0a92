import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension MessageProcessor {
    /// A DM (§5): our entry, the pairwise step, then the payload (hash, key commitment, AEAD),
    /// the strict payload parser and the posted/edit rule. Nothing is committed unless all pass.
    func processDM(_ envelope: DMEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        if let transfer = try await waitsForTransfer(sender, lane: lane) { return pendingStep(message, waitingFor: transfer, rowKind: .message) }
        guard let deviceUUID else { throw ProtocolError.notARecipient }
        let entry = try message.prepared?.pairwise ?? envelope.pairwiseEntry(for: deviceUUID)
        if try await checkParticipant(sender.userID, in: message.channelID, lane: lane) == .waitForAcceptance {
            return pendingStep(message, waitingFor: WaitingKey.request(channelID: message.channelID), rowKind: .message)
        }
        switch try await decryptPairwise(entry, userID: sender.userID, deviceID: sender.deviceID, lane: lane) {
        case .waiting(let key):
            return pendingStep(message, waitingFor: key, rowKind: .message)
        case .decrypted(let pending):
            // Checked after the pairwise step: a first message from a user may be what read
            // their listing and pinned their key (§10.5). Nothing of the decryption commits.
            if try await lane.waitsForLink(userID: sender.userID, deviceID: sender.deviceID) {
                return pendingStep(message, waitingFor: WaitingKey.unlinked(userID: sender.userID, deviceID: sender.deviceID), rowKind: .message)
            }
            let payloadBytes = try envelope.open(pairwisePlaintext: pending.plaintext, channel: try channelUUID(message, lane: lane))
            let payload = try MessagePayload(json: payloadBytes)
            let editedAt = try checkPayload(payload, message)
            // Announcements are group messages (§5.15): signed, and read by every member alike.
            guard payload.announcement == nil else { throw ReceiveRefusal(.invalidPayload) }
            lane.didDecrypt(userID: sender.userID, deviceID: sender.deviceID, effects: pending.effects)
            var unlocks = sessionUnlocks(pending.effects, sender)
            var fixed: Set<String>?
            if let other = payload.with { fixed = try await participantsToFix(other.text, namedBy: sender.userID, device: sender.deviceID, in: message.channelID, lane: lane) }
            if fixed != nil { unlocks.append(WaitingKey.request(channelID: message.channelID)) }
            var step = decryptedStep(message, plaintext: payloadBytes, payload: payload, editedAt: editedAt, sender: sender,
                                     effects: pending.effects, senderKey: nil, unlocks: unlocks)
            step.write?.fixesParticipants = fixed
            return step
        }
    }

    /// On a new device waiting for its primary's trust part (§11.1), a message from another user
    /// waits under `transfer:<id>`: nothing about that user is pinned from a listing before the
    /// primary's decisions are in. Our own devices' messages go on.
    func waitsForTransfer(_ sender: (userID: UserID, deviceID: DeviceID), lane: LaneState) async throws -> String? {
        guard sender.userID != device.userID, let transfer = try await lane.transferAwaitingTrust() else { return nil }
        return WaitingKey.transfer(transfer)
    }

    /// A sender key distribution (§4): our entry, the pairwise step, the SKD plaintext, then
    /// ``SenderKeyDistribution/process(postedChannel:senderDevice:existing:now:)``; the new
    /// receiving state and the session advance commit together. A control row, never shown.
    func processSKD(_ envelope: SKDEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard !message.isEdit else { throw ReceiveRefusal(.wrongEnvelopeType) }
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        if let transfer = try await waitsForTransfer(sender, lane: lane) { return pendingStep(message, waitingFor: transfer, rowKind: .control) }
        guard let deviceUUID else { throw ProtocolError.notARecipient }
        let entry = try message.prepared?.pairwise ?? envelope.pairwiseEntry(for: deviceUUID)
        switch try await decryptPairwise(entry, userID: sender.userID, deviceID: sender.deviceID, lane: lane) {
        case .waiting(let key):
            return pendingStep(message, waitingFor: key, rowKind: .control)
        case .decrypted(let pending):
            if try await lane.waitsForLink(userID: sender.userID, deviceID: sender.deviceID) {
                return pendingStep(message, waitingFor: WaitingKey.unlinked(userID: sender.userID, deviceID: sender.deviceID), rowKind: .control)
            }
            guard case .senderKeyDistribution(let skd) = try PairwisePlaintext.decode(pending.plaintext) else {
                throw ProtocolError.wrongEnvelopeType
            }
            let address = SenderKeyAddress(channelID: message.channelID.rawValue, senderDeviceID: sender.deviceID.rawValue, keyID: skd.keyID)
            let existing = try await lane.senderKey(address)
            if let existing, existing.record.senderUserID != sender.userID.rawValue { throw ReceiveRefusal(.senderMismatch) }
            let decision = try skd.process(postedChannel: try channelUUID(message, lane: lane), senderDevice: envelope.senderDevice,
                                           existing: existing?.state, now: nowSeconds)
            lane.didDecrypt(userID: sender.userID, deviceID: sender.deviceID, effects: pending.effects)
            var unlocks = sessionUnlocks(pending.effects, sender)
            var installed: SenderKeyAddress?
            if case .install(let state) = decision {
                let now = clock()
                let record = ReceiverSenderKey(address: address, senderUserID: sender.userID.rawValue, state: SecretBytes(copying: []), createdAt: now, updatedAt: now)
                lane.didStore(LaneState.SenderKey(record: record, state: state))
                installed = address
                unlocks.append(WaitingKey.senderKey(address))
            }
            return decryptedStep(message, plaintext: nil, payload: nil, editedAt: nil, sender: sender,
                                 effects: pending.effects, senderKey: installed, unlocks: unlocks, result: .keyDistribution)
        }
    }

    /// A group message (§4, §5): the lane's inputs loaded — the channel's standing for another
    /// user's message, then the receiving state the envelope names — and the decision left to
    /// the pure ``GroupMessageStep``; the advanced state is kept in the lane and commits with
    /// the plaintext.
    func processGroup(_ envelope: GroupEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        if let transfer = try await waitsForTransfer(sender, lane: lane) { return pendingStep(message, waitingFor: transfer, rowKind: .message) }
        if sender.userID != device.userID, try await lane.waitsForLink(userID: sender.userID, deviceID: sender.deviceID) {
            return pendingStep(message, waitingFor: WaitingKey.unlinked(userID: sender.userID, deviceID: sender.deviceID), rowKind: .message)
        }
        var input = GroupMessageStep.Input(
            messageID: message.id, isEdit: message.isEdit, editedAt: message.editedAt, createdAt: message.createdAt,
            channel: lane.uuid(message.channelID.rawValue), channelID: message.channelID, envelope: envelope,
            verified: message.prepared?.verifiedGroup, sender: sender, ownUserID: device.userID, channelUnaccepted: nil, key: nil, now: clock())
        if GroupMessageStep.needsStanding(sender.userID, ownUserID: device.userID) {
            input.channelUnaccepted = try await lane.isUnaccepted(channelID: message.channelID)
        }
        if input.channelUnaccepted != true { input.key = try await lane.senderKey(GroupMessageStep.address(of: input)) }
        switch try GroupMessageStep.decide(input) {
        case .waitsForAcceptance:
            return pendingStep(message, waitingFor: WaitingKey.request(channelID: message.channelID), rowKind: .message)
        case .waitsForKey(let address):
            return pendingStep(message, waitingFor: WaitingKey.senderKey(address), rowKind: .message)
        case .decrypted(let plaintext, let payload, let editedAt, let key):
            lane.didStore(key)
            return decryptedStep(message, plaintext: plaintext, payload: payload, editedAt: editedAt, sender: sender,
                                 effects: nil, senderKey: key.record.address, unlocks: [])
        }
    }

    /// A new session installed by a prekey message lets the device's waiting messages retry.
    private func sessionUnlocks(_ effects: SessionEffects, _ sender: (userID: UserID, deviceID: DeviceID)) -> [String] {
        effects.acceptedBaseKey == nil ? [] : [WaitingKey.session(userID: sender.userID, deviceID: sender.deviceID)]
    }

    /// The write of a successful decryption: the row (for an edit, the original's row with the
    /// new plaintext) and the prekey and identity effects; the session and sender-key state it
    /// advanced are named for the lane to attach. A key distribution (no payload), a tombstone
    /// or an announcement is a control row without plaintext: its facts say what it does.
    func decryptedStep(
        _ message: IncomingMessage, plaintext: SecretBytes?, payload: MessagePayload?, editedAt: StoreTime?,
        sender: (userID: UserID, deviceID: DeviceID), effects: SessionEffects?, senderKey: SenderKeyAddress?, unlocks: [String],
        result: ReceiveOutcome.Result = .decrypted
    ) -> ProcessingStep {
        let isControl = payload?.isControl ?? true
        let rowKind: TimelineRowKind = isControl ? .control : .message
        let payloadID = payload?.id.text
        let commit = DecryptionCommit(
            message: message.row(state: .decrypted, plaintext: isControl ? nil : plaintext),
            consumedOneTimePrekeyID: effects?.consumedOneTimePrekey?.id,
            acceptedEphemeralKey: effects?.acceptedBaseKey.map { AcceptedEphemeralKey(publicKey: $0.baseKey.rawRepresentation, signedPrekeyID: $0.signedPrekeyID) },
            identity: effects?.identityToPin.map { RemoteIdentityClaim(userID: sender.userID.rawValue, deviceID: sender.deviceID.rawValue, identityBlob: $0.bytes) },
            processedAt: clock())
        let facts = ReceivedFacts(kind: rowKind, payloadID: message.isEdit ? nil : payloadID, editedAt: editedAt,
                                  deleteOf: payload?.deleteOf?.text, announcement: payload?.announcement,
                                  announcedAt: payload?.announcement == nil ? nil : payload?.timestamp)
        let newPin = effects?.identityToPin == nil ? nil : sender
        // Key states are serialised by the lane at commit time, once per chunk.
        return ProcessingStep(
            outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: message.isEdit ? .edited : result),
            write: ReceiveWrite(action: .decrypted(commit), facts: facts), unlocks: unlocks,
            senderKeyAddress: senderKey, sessionOwner: effects == nil ? nil : sender, newPin: newPin,
            isNewRow: message.isNew, isTimelineRow: rowKind == .message, channelID: message.channelID, sender: sender)
    }
}
