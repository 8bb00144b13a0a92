/// A message whose text came from the primary's history transfer and that this device later
/// decrypted itself with another text (docs/spec/protocol.md §11.9): the decrypted text now
/// shows, and the app may tell the user the primary had sent something else.
public struct TransferredTextChange: Sendable, Equatable {
    /// The message.
    public var messageID: MessageID
    /// Its channel.
    public var channelID: ChannelID
    /// The primary's device the transferred text came from.
    public var transferredFrom: DeviceID?
    /// The text the transfer carried (`nil` when its payload no longer reads).
    public var transferredText: String?
    /// The text this device decrypted (`nil` when the message is no longer readable here).
    public var decryptedText: String?
    /// When this device's own decryption replaced the transferred text.
    public var replacedAt: ServerTimestamp

    /// Creates the value.
    public init(messageID: MessageID, channelID: ChannelID, transferredFrom: DeviceID?, transferredText: String?, decryptedText: String?,
                replacedAt: ServerTimestamp) {
        self.messageID = messageID
        self.channelID = channelID
        self.transferredFrom = transferredFrom
        self.transferredText = transferredText
        self.decryptedText = decryptedText
        self.replacedAt = replacedAt
    }
}
