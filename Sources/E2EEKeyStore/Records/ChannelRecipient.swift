/// Where a device stands as a recipient of one channel's keys (schema `v6`).
package enum RecipientState: String, Sendable, Equatable, CaseIterable {
    /// Keys go to it.
    case recipient
    /// New (or back after it was removed) and held back until the app approves it.
    case held
    /// Kept out by the app until it approves it.
    case declined
    /// It was a recipient (or held) and the server stopped listing it.
    case removed
}

/// A channel's recipient setting, stored and reported. Since docs/spec/protocol.md text 1.2 it
/// no longer decides anything: a new member or device is held whatever it says (§5.11–§5.13).
public enum RecipientPolicy: String, Sendable, Equatable, CaseIterable, Codable {
    /// Keys are withheld until the app approves each new recipient.
    case hold
    /// Keys are sent and the change is surfaced.
    case surface
}

/// One device's standing in one channel.
package struct ChannelRecipient: Sendable, Equatable, Hashable {
    /// The channel.
    public var channelID: String
    /// The device's user.
    public var userID: String
    /// The device.
    public var deviceID: String
    /// Its standing.
    public var state: RecipientState
    /// When the standing last changed.
    public var updatedAt: StoreTime

    /// Creates the value.
    public init(channelID: String, userID: String, deviceID: String, state: RecipientState, updatedAt: StoreTime) {
        self.channelID = channelID
        self.userID = userID
        self.deviceID = deviceID
        self.state = state
        self.updatedAt = updatedAt
    }
}
