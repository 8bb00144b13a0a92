import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The pure step of one group message (docs/spec/protocol.md §4, §5.9, T16): from what the
/// lane holds for the sender device — the channel's standing here and the receiving
/// sender-key state the envelope names — it decides whether the message waits, is refused or
/// decrypts, and returns the advanced state. It does no I/O, takes no lock and reads no clock:
/// the lane loads its inputs, keeps the new state for the next message of the device and
/// commits the write with its chunk (the shape of vodozemac's inbound group session and
/// libsignal's `group_decrypt`). Feeding it the same input gives the same answer, which is
/// what lets the lane call it again after loading a key it asked for.
enum GroupMessageStep {
    /// Everything the step looks at.
    struct Input {
        /// The message's server id, and whether it arrived as an edit (§6).
        var messageID: String
        var isEdit: Bool
        /// When the server says the content was edited, and when it was posted.
        var editedAt: StoreTime?
        var createdAt: StoreTime
        /// The channel the message was posted in: its id, and its wire form (nil when the id
        /// is not a lower-case UUID: such a message is refused as malformed once it could decrypt).
        var channel: WireUUID?
        var channelID: ChannelID
        /// The envelope, and its signature checked ahead when that was done.
        var envelope: GroupEnvelope
        var verified: VerifiedGroupEnvelope?
        /// Whose keys authenticate it: the sender the message claims, checked against the
        /// envelope's device (``MessageProcessor/sender(of:_:lane:)``).
        var sender: (userID: UserID, deviceID: DeviceID)
        /// Our own user: its other devices' messages pass an unaccepted group (they may carry
        /// the announcement of our own acceptance).
        var ownUserID: UserID
        /// Whether this device has not accepted the channel (a request, or declined); read
        /// only for other users' messages (nil: not asked).
        var channelUnaccepted: Bool?
        /// The receiving state at (channel, sender device, the envelope's key id), nil when none
        /// is stored.
        var key: LaneState.SenderKey?
        /// Now, for the record's update time and for an edit without a server time.
        var now: StoreTime
    }

    /// What the step decided.
    enum Decision {
        /// Another user's message in a group this device has not accepted: it waits, not
        /// decrypted, until the app accepts (``WaitingKey/request(channelID:)``).
        case waitsForAcceptance
        /// No receiving state for this key yet: it waits for its distribution.
        case waitsForKey(SenderKeyAddress)
        /// Decrypted: the plaintext, its parsed payload, the edit time to record, and the
        /// advanced state (to keep in the lane and store with the chunk).
        case decrypted(plaintext: SecretBytes, payload: MessagePayload, editedAt: StoreTime?, key: LaneState.SenderKey)
    }

    /// The address of the state the message needs.
    static func address(of input: Input) -> SenderKeyAddress {
        SenderKeyAddress(channelID: input.channelID.rawValue, senderDeviceID: input.sender.deviceID.rawValue, keyID: input.envelope.keyID)
    }

    /// Whether the step needs the channel's standing (other users' messages only).
    static func needsStanding(_ sender: UserID, ownUserID: UserID) -> Bool { sender != ownUserID }

    /// Decides the message.
    /// - Throws: ``ReceiveRefusal`` (`senderMismatch`: the state belongs to another user, T16),
    ///   `malformed` for a channel id that is no UUID, ``ProtocolError`` and ``CryptoError`` from the signature, the chain, the AEAD and the
    ///   payload rules — each a refusal of this message only; nothing changes then.
    static func decide(_ input: Input) throws -> Decision {
        if needsStanding(input.sender.userID, ownUserID: input.ownUserID), input.channelUnaccepted ?? true {
            return .waitsForAcceptance
        }
        guard let key = input.key else { return .waitsForKey(address(of: input)) }
        guard key.record.senderUserID == input.sender.userID.rawValue else { throw ReceiveRefusal(.senderMismatch) }
        guard let channel = input.channel else { throw ReceiveRefusal(.malformed) }
        let seconds = input.now.microseconds / 1_000_000
        let (plaintext, state) = if let verified = input.verified, verified.envelope == input.envelope {
            try key.state.decrypt(verified, channel: channel, now: seconds)
        } else {
            try key.state.decrypt(input.envelope, channel: channel, now: seconds)
        }
        let payload = try MessagePayload(json: plaintext)
        let editedAt = try PayloadRule.check(payload, messageID: input.messageID, isEdit: input.isEdit, editedAt: input.editedAt,
                                             createdAt: input.createdAt, now: input.now)
        var record = key.record
        record.updatedAt = input.now
        return .decrypted(plaintext: plaintext, payload: payload, editedAt: editedAt, key: LaneState.SenderKey(record: record, state: state))
    }
}

/// The payload against how its message arrived (§6), without I/O: an edit (or content the
/// server marks edited, or that names `edit_of`) must carry `edit_of` equal to the message id;
/// posted content must not carry one.
enum PayloadRule {
    /// Checks `payload`; returns the edit time to record, if any (the server's, else now for an
    /// edit, else the posting time).
    /// - Throws: ``ProtocolError`` (`editMismatch` and the payload's own rules).
    static func check(_ payload: MessagePayload, messageID: String, isEdit: Bool, editedAt: StoreTime?, createdAt: StoreTime,
                      now: @autoclosure () -> StoreTime) throws -> StoreTime? {
        guard isEdit || editedAt != nil || payload.editOf != nil else {
            try payload.checkPosted()
            return nil
        }
        guard let id = try? WireUUID(text: messageID) else { throw ProtocolError.editMismatch }
        try payload.checkEdit(of: id)
        return editedAt ?? (isEdit ? now() : createdAt)
    }
}
