import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension MessageProcessor {
    /// A DM (§5): our entry, the pairwise step, then the payload (hash, key commitment, AEAD),
    /// the strict payload parser and the posted/edit rule. Nothing is committed unless all pass.
    func processDM(_ envelope: DMEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        guard let deviceUUID else { throw ProtocolError.notARecipient }
        let entry = try message.prepared?.pairwise ?? envelope.pairwiseEntry(for: deviceUUID)
        if try await checkParticipant(sender.userID, in: message.channelID, lane: lane) == .waitForAcceptance {
            return pendingStep(message, waitingFor: WaitingKey.request(channelID: message.channelID), rowKind: .message)
        }
        switch try await decryptPairwise(entry, userID: sender.userID, deviceID: sender.deviceID, lane: lane) {
        case .waiting(let key):
            return pendingStep(message, waitingFor: key, rowKind: .message)
        case .decrypted(let pending):
            let payloadBytes = try envelope.open(pairwisePlaintext: pending.plaintext, channel: try channelUUID(message, lane: lane))
            let payload = try MessagePayload(json: payloadBytes)
            let editedAt = try checkPayload(payload, message)
            // Announcements are group messages (§5.15): signed, and read by every member alike.
            guard payload.announcement == nil else { throw ReceiveRefusal(.invalidPayload) }
            lane.didDecrypt(userID: sender.userID, deviceID: sender.deviceID, effects: pending.effects)
            var unlocks = sessionUnlocks(pending.effects, sender)
            if let other = payload.with, try await adoptParticipant(other.text, namedBy: sender.userID.rawValue, in: message.channelID) {
                lane.participantsChanged(channelID: message.channelID)
                unlocks.append(WaitingKey.request(channelID: message.channelID))
            }
            return decryptedStep(message, plaintext: payloadBytes, payload: payload, editedAt: editedAt, sender: sender,
                                 effects: pending.effects, senderKey: nil, unlocks: unlocks)
        }
    }

    /// A sender key distribution (§4): our entry, the pairwise step, the SKD plaintext, then
    /// ``SenderKeyDistribution/process(postedChannel:senderDevice:existing:now:)``; the new
    /// receiving state and the session advance commit together. A control row, never shown.
    func processSKD(_ envelope: SKDEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard !message.isEdit else { throw ReceiveRefusal(.wrongEnvelopeType) }
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        guard let deviceUUID else { throw ProtocolError.notARecipient }
        let entry = try message.prepared?.pairwise ?? envelope.pairwiseEntry(for: deviceUUID)
        switch try await decryptPairwise(entry, userID: sender.userID, deviceID: sender.deviceID, lane: lane) {
        case .waiting(let key):
            return pendingStep(message, waitingFor: key, rowKind: .control)
        case .decrypted(let pending):
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

    /// A group message (§4, §5): in a group this device has not accepted, another user's
    /// message waits for the acceptance; then the receiving state of (channel, device, key id) — absent:
    /// pending until its SKD arrives — whose owner must be the sender user (T16), then
    /// signature, jump limit and AEAD on a copy; the advanced state commits with the plaintext.
    func processGroup(_ envelope: GroupEnvelope, _ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        guard let sender = try sender(of: envelope.senderDevice, message, lane: lane) else { return ignoredStep(message) }
        if sender.userID != device.userID, try await lane.isUnaccepted(channelID: message.channelID) {
            // A group this device has not accepted (§5.9): another user's message waits, not
            // decrypted, until the app accepts it (our own devices' pass: they may carry the
            // announcement of our own acceptance).
            return pendingStep(message, waitingFor: WaitingKey.request(channelID: message.channelID), rowKind: .message)
        }
        let address = SenderKeyAddress(channelID: message.channelID.rawValue, senderDeviceID: sender.deviceID.rawValue, keyID: envelope.keyID)
        guard let key = try await lane.senderKey(address) else {
            return pendingStep(message, waitingFor: WaitingKey.senderKey(address), rowKind: .message)
        }
        guard key.record.senderUserID == sender.userID.rawValue else { throw ReceiveRefusal(.senderMismatch) }
        let channel = try channelUUID(message, lane: lane)
        let (plaintext, state) = if let verified = message.prepared?.verifiedGroup, verified.envelope == envelope {
            try key.state.decrypt(verified, channel: channel, now: nowSeconds)
        } else {
            try key.state.decrypt(envelope, channel: channel, now: nowSeconds)
        }
        let payload = try MessagePayload(json: plaintext)
        let editedAt = try checkPayload(payload, message)
        var record = key.record
        record.updatedAt = clock()
        lane.didStore(LaneState.SenderKey(record: record, state: state))
        return decryptedStep(message, plaintext: plaintext, payload: payload, editedAt: editedAt, sender: sender,
                             effects: nil, senderKey: address, unlocks: [])
    }

    /// A new session installed by a prekey message lets the device's waiting messages retry.
    private func sessionUnlocks(_ effects: SessionEffects, _ sender: (userID: UserID, deviceID: DeviceID)) -> [String] {
        effects.acceptedBaseKey == nil ? [] : [WaitingKey.session(userID: sender.userID, deviceID: sender.deviceID)]
    }

    /// The write of a successful decryption: the row (for an edit, the original's row with the
    /// new plaintext) and the prekey and identity effects; the session and sender-key state it
    /// advanced are named for the lane to attach. A key distribution (no payload), a tombstone
    /// or an announcement is a control row without plaintext: its facts say what it does.
    private func decryptedStep(
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
                                  deleteOf: payload?.deleteOf?.text, announcement: payload?.announcement)
        let newPin = effects?.identityToPin == nil ? nil : sender
        // Key states are serialised by the lane at commit time, once per chunk.
        return ProcessingStep(
            outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: message.isEdit ? .edited : result),
            write: ReceiveWrite(action: .decrypted(commit), facts: facts), unlocks: unlocks,
            senderKeyAddress: senderKey, sessionOwner: effects == nil ? nil : sender, newPin: newPin,
            isNewRow: message.isNew, isTimelineRow: rowKind == .message, channelID: message.channelID, sender: sender)
    }
}
