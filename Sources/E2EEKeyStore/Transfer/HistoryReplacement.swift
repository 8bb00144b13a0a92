import E2EECrypto

/// A transferred text this device later replaced with its own decryption of the message
/// (docs/spec/protocol.md §11.9), kept so that a difference can be shown: the primary sent one
/// text, the sender's envelope says another.
@_spi(StoreInternals) public struct HistoryReplacement: Sendable, Equatable {
    /// The server message id.
    public var messageID: String
    /// The channel.
    public var channelID: String
    /// The transfer that had imported the text.
    public var transferID: String
    /// The primary's device id it came from.
    public var sourceDeviceID: String?
    /// The payload the transfer carried (kept wiped).
    public var transferredPayload: SecretBytes?
    /// The payload this device decrypted itself (`nil` when the row has none any more).
    public var decryptedPayload: SecretBytes?
    /// When it was replaced.
    public var replacedAt: StoreTime

    /// Whether the two payloads differ.
    public var differs: Bool { transferredPayload != decryptedPayload }
}
