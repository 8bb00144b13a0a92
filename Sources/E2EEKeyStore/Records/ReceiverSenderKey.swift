import E2EECrypto

/// Names one receiving sender-key state: (channel, sender device, key id).
@_spi(StoreInternals) public struct SenderKeyAddress: Sendable, Hashable, CustomStringConvertible {
    /// The channel.
    public var channelID: String
    /// The sending device.
    public var senderDeviceID: String
    /// The sender's key id.
    public var keyID: UInt32

    /// Creates the address.
    public init(channelID: String, senderDeviceID: String, keyID: UInt32) {
        self.channelID = channelID
        self.senderDeviceID = senderDeviceID
        self.keyID = keyID
    }

    /// `channel/device/keyID` (public ids only); also the row id in sealing.
    public var description: String { "\(channelID)/\(senderDeviceID)/\(keyID)" }
}

/// A receiving sender-key state for one (channel, sender device, key id).
@_spi(StoreInternals) public struct ReceiverSenderKey: Sendable, Equatable {
    /// Where it belongs.
    public var address: SenderKeyAddress
    /// The sending user.
    public var senderUserID: String
    /// The serialised state (chain key at its next iteration, public signing key; sealed).
    public var state: SecretBytes
    /// When it was first stored.
    public var createdAt: StoreTime
    /// When it was last advanced.
    public var updatedAt: StoreTime

    /// Creates the value.
    public init(address: SenderKeyAddress, senderUserID: String, state: SecretBytes, createdAt: StoreTime, updatedAt: StoreTime) {
        self.address = address
        self.senderUserID = senderUserID
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A message key kept for a skipped iteration of a receiving sender-key state.
package struct SkippedSenderKey: Sendable, Equatable {
    /// The receiving state it belongs to.
    public var address: SenderKeyAddress
    /// The iteration.
    public var iteration: UInt32
    /// The message key (sealed at rest).
    public var messageKey: SecretBytes

    /// Creates the value.
    public init(address: SenderKeyAddress, iteration: UInt32, messageKey: SecretBytes) {
        self.address = address
        self.iteration = iteration
        self.messageKey = messageKey
    }
}
