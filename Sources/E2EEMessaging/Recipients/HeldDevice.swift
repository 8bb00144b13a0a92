import Foundation

/// One device held back from keys, however many channels hold it (docs/spec/protocol.md §5.12):
/// what an app shows as one "approve this device?" entry. A decision about a device covers every
/// channel, so ``Account/approveDevice(_:)`` or ``Account/declineDevice(_:)`` answers it once.
public struct HeldDevice: Sendable, Equatable {
    /// The device and its user.
    public var device: RecipientDevice
    /// The name the device was registered with, as the server lists it for our own user's
    /// devices (the server's word, for display only); `nil` for another user's device, or when
    /// the server could not be asked.
    public var name: String?
    /// When this device first held it (its earliest hold in any channel).
    public var firstSeen: Date
    /// The channels it is held in, sorted.
    public var channels: [ChannelID]

    /// Creates the value.
    public init(device: RecipientDevice, name: String?, firstSeen: Date, channels: [ChannelID]) {
        self.device = device
        self.name = name
        self.firstSeen = firstSeen
        self.channels = channels
    }
}
