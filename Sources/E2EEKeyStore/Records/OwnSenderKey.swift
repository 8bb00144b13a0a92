import E2EECrypto

/// One of this device's sender keys for a channel, as opaque serialised protocol state.
package struct OwnSenderKey: Sendable, Equatable {
    /// The channel.
    public var channelID: String
    /// The key id.
    public var keyID: UInt32
    /// The serialised state (chain key, iteration, signing key; sealed at rest).
    public var state: SecretBytes
    /// `true` for the channel's current key.
    public var isCurrent: Bool
    /// Messages sent with this key (drives rotation after 100).
    public var messagesSent: Int
    /// When it was made.
    public var createdAt: StoreTime

    /// Creates the value.
    public init(channelID: String, keyID: UInt32, state: SecretBytes, isCurrent: Bool, messagesSent: Int, createdAt: StoreTime) {
        self.channelID = channelID
        self.keyID = keyID
        self.state = state
        self.isCurrent = isCurrent
        self.messagesSent = messagesSent
        self.createdAt = createdAt
    }
}
