import E2EECrypto

/// Everything one successful decryption changes, committed together by
/// ``KeyStore/storeDecryption(_:)``: the plaintext and timeline row, the advanced key state,
/// the used key deleted, and any prekey, ephemeral-key or identity effects of a prekey message.
@_spi(StoreInternals) public struct DecryptionCommit: Sendable {
    /// The timeline row to write (normally state `.decrypted` with the plaintext; the pending row
    /// with the same id, if any, is removed).
    public var message: TimelineMessage
    /// A group message's sender-key effects.
    public var senderKey: SenderKeyAdvance?
    /// A pairwise message's session effects.
    public var session: SessionAdvance?
    /// A one-time prekey the prekey message used (marked consumed now).
    public var consumedOneTimePrekeyID: UInt32?
    /// The initiator's ephemeral key of a prekey message (recorded against replays).
    public var acceptedEphemeralKey: AcceptedEphemeralKey?
    /// An identity to pin if the device is new (a different pin refuses the whole commit).
    public var identity: RemoteIdentityClaim?
    /// When the message was processed (consumption, acceptance and update times).
    public var processedAt: StoreTime

    /// Creates a commit.
    public init(message: TimelineMessage, senderKey: SenderKeyAdvance? = nil, session: SessionAdvance? = nil, consumedOneTimePrekeyID: UInt32? = nil,
                acceptedEphemeralKey: AcceptedEphemeralKey? = nil, identity: RemoteIdentityClaim? = nil, processedAt: StoreTime = .now()) {
        self.processedAt = processedAt
        self.message = message
        self.senderKey = senderKey
        self.session = session
        self.consumedOneTimePrekeyID = consumedOneTimePrekeyID
        self.acceptedEphemeralKey = acceptedEphemeralKey
        self.identity = identity
    }
}

/// A receiving sender-key state after a decryption.
@_spi(StoreInternals) public struct SenderKeyAdvance: Sendable {
    /// The new state (inserted, or replacing the one at its address).
    public var state: ReceiverSenderKey
    /// The skipped key that was used (deleted now).
    public var usedSkippedIteration: UInt32?
    /// Keys skipped over by this message (stored now).
    public var newSkippedKeys: [SkippedSenderKey]

    /// Creates the value.
    public init(state: ReceiverSenderKey, usedSkippedIteration: UInt32? = nil, newSkippedKeys: [SkippedSenderKey] = []) {
        self.state = state
        self.usedSkippedIteration = usedSkippedIteration
        self.newSkippedKeys = newSkippedKeys
    }
}

/// A pairwise session after a decryption.
@_spi(StoreInternals) public enum SessionAdvance: Sendable {
    /// An existing session (current or archived) with its new state.
    case update(sessionID: String, state: SecretBytes)
    /// A new session from a prekey message, installed as current (the old one archived).
    case install(userID: String, deviceID: String, state: SecretBytes)
}

/// An X3DH ephemeral key accepted under a signed prekey.
@_spi(StoreInternals) public struct AcceptedEphemeralKey: Sendable {
    /// `EK_A` (32 bytes).
    public var publicKey: [UInt8]
    /// The signed prekey it was used with.
    public var signedPrekeyID: UInt32

    /// Creates the value.
    public init(publicKey: [UInt8], signedPrekeyID: UInt32) {
        self.publicKey = publicKey
        self.signedPrekeyID = signedPrekeyID
    }
}

/// The identity blob a message's sender presented.
@_spi(StoreInternals) public struct RemoteIdentityClaim: Sendable {
    /// The user.
    public var userID: String
    /// The device.
    public var deviceID: String
    /// The 65-byte identity blob.
    public var identityBlob: [UInt8]

    /// Creates the value.
    public init(userID: String, deviceID: String, identityBlob: [UInt8]) {
        self.userID = userID
        self.deviceID = deviceID
        self.identityBlob = identityBlob
    }
}
