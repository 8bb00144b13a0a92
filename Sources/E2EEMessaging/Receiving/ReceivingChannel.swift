import E2EECrypto

/// The channel a batch of posted messages belongs to, as the receive pipeline needs it: its id
/// and its `encryption_type` (an envelope of the other kind is refused, docs/spec/protocol.md §5).
@_spi(Benchmarks) public struct ReceivingChannel: Sendable, Hashable {
    /// The channel id.
    public var id: ChannelID
    /// `x3dh` for DMs, `sender_keys` for groups.
    public var encryption: ChannelEncryptionType

    /// Creates the value.
    public init(id: ChannelID, encryption: ChannelEncryptionType) {
        self.id = id
        self.encryption = encryption
    }
}
