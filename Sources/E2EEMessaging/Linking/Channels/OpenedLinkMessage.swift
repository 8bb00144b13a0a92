import E2EECrypto
import E2EEKeyStore

/// A link message this device opened from one of its own devices (docs/spec/protocol.md
/// §10.22), once the step that opened it committed: what the ceremony and the transfer act on.
struct OpenedLinkMessage: Sendable {
    /// The server's id of the row that carried it.
    let messageID: MessageID
    /// The link channel it came in.
    let channelID: ChannelID
    /// Which link channel that is.
    let channel: LinkChannel
    /// The own device that sent it (authenticated by the pairwise ratchet).
    let senderDeviceID: DeviceID
    /// When the server dated the row.
    let createdAt: StoreTime
    /// The opened plaintext.
    let plaintext: LinkPlaintext
}
