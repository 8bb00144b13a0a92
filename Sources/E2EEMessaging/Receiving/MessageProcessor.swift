import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Turns one message into exactly one outcome and the write that stores it (docs/spec/protocol.md §2–§6,
/// docs/spec/sync.md 3 and 8). It reads keys through the lane's state and never writes: the lane commits
/// the writes of a chunk in one transaction. Bad input is an outcome; only store errors are
/// thrown. A message claiming this device is never decrypted (our own envelopes are not
/// addressed to us): it is `own` when the outbox recognised it before the batch
/// (``IncomingMessage/isOwnEcho``), refused otherwise.
struct MessageProcessor: Sendable {
    let store: KeyStore
    let device: LocalDevice
    let listedIdentities: any ListedIdentityProviding
    let clock: @Sendable () -> StoreTime
    let random: any RandomSource
    /// Our device id as a wire UUID (nil if the account's id is not a lower-case UUID: then
    /// no entry can be ours).
    let deviceUUID: WireUUID?

    init(store: KeyStore, device: LocalDevice, listedIdentities: any ListedIdentityProviding,
         clock: @escaping @Sendable () -> StoreTime, random: any RandomSource) {
        self.store = store
        self.device = device
        self.listedIdentities = listedIdentities
        self.clock = clock
        self.random = random
        self.deviceUUID = try? WireUUID(text: device.deviceID.rawValue)
    }

    /// The outcome of `message`, with what to store.
    /// - Throws: store errors.
    func process(_ message: IncomingMessage, lane: LaneState) async throws -> ProcessingStep {
        let rowKind: TimelineRowKind = message.contentType == EnvelopeKind.senderKeyDistribution.contentType
            || message.contentType == LinkEnvelope.contentType ? .control : .message
        do {
            if !message.isEdit, message.senderDeviceID == device.deviceID {
                // Another user posting under our device id (a re-posted copy, T19) is refused.
                guard message.senderUserID == device.userID else { throw ReceiveRefusal(.senderMismatch) }
                if message.isOwnEcho {
                    return ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .own), write: nil, isNewRow: message.isNew,
                                          isTimelineRow: true, channelID: message.channelID)
                }
                throw ReceiveRefusal(.ownDeviceClaimed)
            }
            if case .edit(let original) = message.mode {
                // An edit keeps the original's protocol version (PATCH changes only the content).
                let wasPlaintext = original.message.state == .unencrypted
                guard wasPlaintext == (message.protocolVersion == 1) else { throw ReceiveRefusal(.wrongEnvelopeType) }
            }
            guard message.protocolVersion == 2 else {
                if message.protocolVersion == 1 { return try unencryptedStep(message) }
                return unsupportedStep(message, rowKind: rowKind)
            }
            if message.channelEncryption == .x3dh {
                let standing = try await lane.linkStanding(channelID: message.channelID, ownUserID: device.userID)
                if message.contentType == LinkEnvelope.contentType { return try await processLink(message, standing: standing, lane: lane) }
                // A link channel carries nothing but link envelopes (an exception to §5.6).
                guard standing == .none else { throw ReceiveRefusal(.wrongEnvelopeType) }
            } else if message.contentType == LinkEnvelope.contentType {
                throw ReceiveRefusal(.wrongEnvelopeType)
            }
            guard EnvelopeKind(rawValue: message.contentType) != nil else { return unsupportedStep(message, rowKind: rowKind) }
            let received: ReceivedContent
            do {
                received = try message.prepared?.received.get() ?? message.receivedContent()
            } catch ProtocolError.unsupportedVersion(.content, _) {
                return unsupportedStep(message, rowKind: rowKind)
            }
            switch received.envelope {
            case .dm(let envelope): return try await processDM(envelope, message, lane: lane)
            case .group(let envelope): return try await processGroup(envelope, message, lane: lane)
            case .senderKeyDistribution(let envelope): return try await processSKD(envelope, message, lane: lane)
            }
        } catch let refusal as ReceiveRefusal {
            return refusalStep(message, refusal, rowKind: rowKind)
        } catch let error as ProtocolError {
            return refusalStep(message, ReceiveRefusal(UndecryptableReason(error)), rowKind: rowKind)
        } catch is CryptoError {
            return refusalStep(message, ReceiveRefusal(.cryptoFailure), rowKind: rowKind)
        }
    }

    /// Unix seconds now (the protocol's clock).
    var nowSeconds: Int64 { clock().microseconds / 1_000_000 }

    /// The sender (user, device) whose keys authenticate the envelope (docs/spec/protocol.md §5, T16):
    /// the envelope's device must be the message's `sender_device_id` of the `sender_id`
    /// user; for an edit, a device of the original sender (checked against pins and sender-key
    /// owners by the caller). Nil for an edit made on this device (the sending side's).
    ///
    /// Content the server marks edited (`edited_at`) counts as an edit here even when no
    /// original is stored or the original still waits for its key: `PATCH` keeps the original
    /// `sender_device_id`, so an edit made on another device of the author arrives under the
    /// first device's id. Its payload must then name this message in `edit_of`
    /// (``checkPayload(_:_:)``, inside the authenticated ciphertext), so a server that marks a
    /// posted message edited only moves it to the device that really sent it.
    func sender(of envelopeDevice: WireUUID, _ message: IncomingMessage, lane: LaneState) throws -> (userID: UserID, deviceID: DeviceID)? {
        if case .edit(let original) = message.mode {
            guard envelopeDevice.text != device.deviceID.rawValue else { return nil }
            guard let user = original.message.senderUserID else { throw ReceiveRefusal(.senderMismatch) }
            return (UserID(stored: user), DeviceID(envelopeDevice.text))
        }
        if message.editedAt != nil, message.contentType != EnvelopeKind.senderKeyDistribution.contentType,
           envelopeDevice.text != device.deviceID.rawValue, let user = message.senderUserID {
            return (user, DeviceID(envelopeDevice.text))
        }
        guard let claimed = message.senderDeviceID, let claimedUUID = lane.uuid(claimed.rawValue), claimedUUID == envelopeDevice,
              let user = message.senderUserID else { throw ReceiveRefusal(.senderMismatch) }
        return (user, claimed)
    }

    /// The channel as a wire UUID.
    func channelUUID(_ message: IncomingMessage, lane: LaneState) throws -> WireUUID {
        guard let uuid = lane.uuid(message.channelID.rawValue) else { throw ReceiveRefusal(.malformed) }
        return uuid
    }

    /// Checks the payload against how the message arrived (§6): an edit (or content the server
    /// marks edited, or that names `edit_of`) must carry `edit_of` equal to the message id;
    /// posted content must not carry one. Returns the edit time to record, if any.
    func checkPayload(_ payload: MessagePayload, _ message: IncomingMessage) throws -> StoreTime? {
        try PayloadRule.check(payload, messageID: message.id, isEdit: message.isEdit, editedAt: message.editedAt, createdAt: message.createdAt,
                              now: clock())
    }

    /// `protocol_version` 1: stored flagged unencrypted with its text (docs/spec/sync.md 8); never opened.
    private func unencryptedStep(_ message: IncomingMessage) throws -> ProcessingStep {
        let length = message.content.utf8.count
        guard length <= ProtocolLimits.maxContentBase64Length else { throw ReceiveRefusal(.limitExceeded) }
        let row = message.row(state: .unencrypted, plaintext: SecretBytes(copying: message.content.utf8))
        let write: ReceiveWrite
        let result: ReceiveOutcome.Result
        if message.isEdit {
            // Replaces the stored text of a plaintext message (an upsert without key effects).
            write = ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, processedAt: clock())),
                                 facts: ReceivedFacts(kind: .message, editedAt: message.editedAt ?? clock()))
            result = .edited
        } else {
            write = ReceiveWrite(action: .outcome(row), facts: ReceivedFacts(kind: .message))
            result = .unencrypted
        }
        return ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: result), write: write, isNewRow: message.isNew,
                              isTimelineRow: true, channelID: message.channelID)
    }

    /// Content that is not our envelope (docs/spec/sync.md 8): stored as unsupported format.
    private func unsupportedStep(_ message: IncomingMessage, rowKind: TimelineRowKind) -> ProcessingStep {
        var step = refusalStep(message, ReceiveRefusal(.unsupportedFormat), rowKind: rowKind)
        if !message.isEdit { step.outcome = ReceiveOutcome(messageID: MessageID(stored: message.id), result: .unsupportedFormat) }
        return step
    }

    /// A refusal: an undecryptable row, or for an edit a refused-input record (the message
    /// stays), with the identity change or ratchet restart it records.
    func refusalStep(_ message: IncomingMessage, _ refusal: ReceiveRefusal, rowKind: TimelineRowKind) -> ProcessingStep {
        if message.isEdit {
            let input = RefusedInput(channelID: message.channelID.rawValue, messageID: message.id, kind: .edit, reason: refusal.reason.rawValue,
                                     contentHash: message.contentHash, seenAt: clock())
            return ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .editRefused(refusal.reason)),
                                  write: ReceiveWrite(action: .refused(input), facts: ReceivedFacts(kind: .message), identityChange: refusal.identityChange,
                                                      sessionRestart: refusal.sessionRestart),
                                  isNewRow: false, isTimelineRow: true, channelID: message.channelID)
        }
        // A third user's DM message is refused input, never a timeline message (docs/spec/protocol.md §5).
        let kind: TimelineRowKind = refusal.reason == .notAParticipant ? .control : rowKind
        let row = message.row(state: .undecryptable(reason: refusal.reason.rawValue))
        return ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .undecryptable(refusal.reason)),
                              write: ReceiveWrite(action: .outcome(row), facts: ReceivedFacts(kind: kind), identityChange: refusal.identityChange,
                                                  sessionRestart: refusal.sessionRestart),
                              isNewRow: message.isNew, isTimelineRow: kind == .message, channelID: message.channelID)
    }

    /// The message waits for `key` in the pending queue (an edit's key that is not here refuses the edit).
    func pendingStep(_ message: IncomingMessage, waitingFor key: String, rowKind: TimelineRowKind) -> ProcessingStep {
        guard !message.isEdit else { return refusalStep(message, ReceiveRefusal(.keyUnavailable), rowKind: rowKind) }
        let write = ReceiveWrite(action: .pending(message.row(state: .pendingKey), content: message.content, waitingFor: key, receivedAt: clock()),
                                 facts: ReceivedFacts(kind: rowKind, editedAt: message.editedAt))
        return ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .pending(waitingFor: key)), write: write,
                              isNewRow: message.isNew, isTimelineRow: rowKind == .message, channelID: message.channelID)
    }

    /// An edit made on this device: the sending side keeps its own rows.
    func ignoredStep(_ message: IncomingMessage) -> ProcessingStep {
        ProcessingStep(outcome: ReceiveOutcome(messageID: MessageID(stored: message.id), result: .ignored), write: nil, isNewRow: false, isTimelineRow: true,
                       channelID: message.channelID)
    }
}
