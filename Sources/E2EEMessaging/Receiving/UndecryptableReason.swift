import E2EECrypto

/// Why a message cannot be shown as an encrypted message (docs/spec/protocol.md §9), as stored in the
/// timeline's `failure_reason` and shown to the app. Public, stable codes; never content.
public enum UndecryptableReason: String, Sendable, Equatable, CaseIterable {
    /// `protocol_version` 2 content that is not our envelope, or an unknown version (docs/spec/sync.md 8).
    case unsupportedFormat = "unsupported_format"
    /// The envelope or a structure inside it does not parse.
    case malformed
    /// A count, length or size above the protocol's limits.
    case limitExceeded = "limit_exceeded"
    /// An unknown version or type byte inside the envelope.
    case unsupportedVersion = "unsupported_version"
    /// The envelope type does not match the channel or the `content_type`.
    case wrongEnvelopeType = "wrong_envelope_type"
    /// The envelope has no entry for this device.
    case notARecipient = "not_a_recipient"
    /// A group message's signature did not verify.
    case badSignature = "bad_signature"
    /// An AEAD tag did not verify.
    case badTag = "bad_tag"
    /// The DM key commitment or payload hash did not match.
    case keyCommitMismatch = "key_commit_mismatch"
    /// A public key in the message is unusable.
    case invalidKey = "invalid_key"
    /// A replayed prekey message (its `EK_A` was accepted before).
    case replay
    /// A signed group message at a chain position this device already decrypted, with other
    /// bytes: the sender's store was probably restored from an older copy (docs/spec/protocol.md
    /// §6.6, §9). The first message's content stays.
    case positionReused = "position_reused"
    /// Older than the chain, with no stored key.
    case tooOld = "too_old"
    /// A skip or jump above the limits.
    case tooFarAhead = "too_far_ahead"
    /// The prekey message's identity is not the one the server lists for the device.
    case identityMismatch = "identity_mismatch"
    /// A pinned device presented another identity: refused and surfaced.
    case identityChanged = "identity_changed"
    /// The envelope's device is not the message's sender device, or not one of the sender's devices (T16).
    case senderMismatch = "sender_mismatch"
    /// The message claims this device as its sender but this device never sent it.
    case ownDeviceClaimed = "own_device_claimed"
    /// The signed or one-time prekey the message names is gone.
    case unknownPrekey = "unknown_prekey"
    /// A sender key distribution for another channel.
    case channelMismatch = "channel_mismatch"
    /// A sender key distribution that contradicts a known one.
    case senderKeyConflict = "sender_key_conflict"
    /// An edit whose payload does not name the message, or posted content that claims to be an edit.
    case editMismatch = "edit_mismatch"
    /// The payload JSON is refused by the strict parser.
    case invalidPayload = "invalid_payload"
    /// The message's channel is not the channel it was delivered for.
    case wrongChannel = "wrong_channel"
    /// From a device of a user with a user key that the key did not link within the bounds of
    /// docs/spec/protocol.md §10.8 (30 days, or over the per-device and per-user caps).
    case unlinkedDevice = "unlinked_device"
    /// The original of an edit is not readable here (undecryptable), so an edit cannot be checked.
    case originalNotReadable = "original_not_readable"
    /// The key an edit needs is not here (no session or sender key for its device yet).
    case keyUnavailable = "key_unavailable"
    /// A cryptographic primitive failed.
    case cryptoFailure = "crypto_failure"
    /// A message in a DM from a user who is not one of its two participants (docs/spec/protocol.md §5,
    /// §9): refused and kept out of the timeline.
    case notAParticipant = "not_a_participant"
    /// A second copy of a message already shown (stored only on hidden duplicate rows).
    case duplicate
    /// Not a recipient: a group message sent after this device left the channel (or was removed
    /// from it), so its sender key never reaches this device. Not retried; the row keeps its place.
    case sentAfterLeaving = "sent_after_leaving"
    /// Not kept: it came while the channel was an unaccepted request that already held
    /// `ProtocolLimits.maxRequestPendingBytes` of waiting messages (docs/spec/sync.md §3). Its
    /// envelope was dropped, so accepting the request does not make it readable.
    case requestOverflow = "request_overflow"
    /// A stored reason this version does not know.
    case other

    /// The reason for a protocol refusal.
    public init(_ error: ProtocolError) {
        switch error {
        case .malformed(.payload, _), .truncated(.payload, _, _), .trailingBytes(.payload, _): self = .invalidPayload
        case .malformed, .truncated, .trailingBytes, .invalidRecipients: self = .malformed
        case .unsupportedVersion: self = .unsupportedVersion
        case .limitExceeded: self = .limitExceeded
        case .badSignature: self = .badSignature
        case .badTag: self = .badTag
        case .keyCommitMismatch: self = .keyCommitMismatch
        case .invalidKey, .allZeroSharedSecret: self = .invalidKey
        case .replay: self = .replay
        case .duplicate, .positionReused: self = .positionReused
        case .tooOld: self = .tooOld
        case .tooFarAhead: self = .tooFarAhead
        case .identityMismatch: self = .identityMismatch
        case .senderMismatch: self = .senderMismatch
        case .unknownPrekey: self = .unknownPrekey
        case .unencrypted, .wrongEnvelopeType: self = .wrongEnvelopeType
        case .channelMismatch: self = .channelMismatch
        case .senderKeyConflict: self = .senderKeyConflict
        case .notARecipient: self = .notARecipient
        case .editMismatch: self = .editMismatch
        case .unknownSession, .unknownSenderKey, .cannotSendYet: self = .other
        case .crypto: self = .cryptoFailure
        }
    }

    /// The reason stored in a timeline row (`.other` for text this version does not know).
    public init(stored text: String) {
        // Rows written before protocol text 1.2 named the reused position "duplicate_iteration".
        self = UndecryptableReason(rawValue: text == "duplicate_iteration" ? Self.positionReused.rawValue : text) ?? .other
    }
}
