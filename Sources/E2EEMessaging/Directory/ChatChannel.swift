import E2EECrypto
import E2EEKeyStore

/// A channel of the account, as the app sees it.
public struct ChatChannel: Sendable, Equatable, Hashable {
    /// The channel id.
    public let id: ChannelID
    /// Its name (`nil` for DMs).
    public let name: String?
    /// Whether it is a direct message.
    public let isDM: Bool
    /// How its messages are encrypted, or `nil` for a type this core does not speak.
    public let encryption: ChannelEncryptionType?

    init(_ record: ChannelRecord) {
        id = ChannelID(stored: record.id)
        name = record.name
        isDM = record.isDM
        encryption = ChannelEncryptionType(rawValue: record.encryptionType)
    }

    /// Whether it has the shape of a link channel (`is_dm` false with `x3dh`, docs/spec/protocol.md
    /// §10.22), which no DM or group has: ours carry link messages, anyone else's are anomalies;
    /// neither is shown to the app.
    var hasLinkShape: Bool { !isDM && encryption == .x3dh }
}
