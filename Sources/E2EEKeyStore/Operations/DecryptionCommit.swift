import E2EECrypto

/// What one successful decryption stores besides its key states, as the
/// ``ReceiveWrite/Action/decrypted(_:)`` write of ``KeyStore/storeReceiveBatch(_:)``: the
/// plaintext and timeline row, and any prekey, ephemeral-key or identity effects of a prekey
/// message. The session and sender-key states it advanced travel on the ``ReceiveWrite``, so a
/// batch writes each final state once.
@_spi(StoreInternals) public struct DecryptionCommit: Sendable {
    /// The timeline row to write (normally state `.decrypted` with the plaintext; the pending row
    /// with the same id, if any, is removed).
    public var message: TimelineMessage
    /// A one-time prekey the prekey message used (marked consumed now).
    public var consumedOneTimePrekeyID: UInt32?
    /// The initiator's ephemeral key of a prekey message (recorded against replays).
    public var acceptedEphemeralKey: AcceptedEphemeralKey?
    /// An identity to pin if the device is new (a different pin refuses the whole commit).
    public var identity: RemoteIdentityClaim?
    /// When the message was processed (consumption, acceptance and update times).
    public var processedAt: StoreTime

    /// Creates a commit.
    public init(message: TimelineMessage, consumedOneTimePrekeyID: UInt32? = nil, acceptedEphemeralKey: AcceptedEphemeralKey? = nil,
                identity: RemoteIdentityClaim? = nil, processedAt: StoreTime = .now()) {
        self.processedAt = processedAt
        self.message = message
        self.consumedOneTimePrekeyID = consumedOneTimePrekeyID
        self.acceptedEphemeralKey = acceptedEphemeralKey
        self.identity = identity
    }
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
