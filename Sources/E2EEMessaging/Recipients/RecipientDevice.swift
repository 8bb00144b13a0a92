/// A device of a user, as a recipient of a channel's keys (docs/spec/protocol.md §5).
public struct RecipientDevice: Sendable, Equatable, Hashable, Codable {
    /// The user.
    public var userID: UserID
    /// The device.
    public var deviceID: DeviceID

    /// Creates the value.
    public init(userID: UserID, deviceID: DeviceID) {
        self.userID = userID
        self.deviceID = deviceID
    }
}

/// A device held back from a channel's keys until the app approves it.
public struct HeldRecipient: Sendable, Equatable, Hashable {
    /// The channel.
    public var channelID: ChannelID
    /// The device and its user.
    public var device: RecipientDevice

    /// Creates the value.
    public init(channelID: ChannelID, device: RecipientDevice) {
        self.channelID = channelID
        self.device = device
    }
}
