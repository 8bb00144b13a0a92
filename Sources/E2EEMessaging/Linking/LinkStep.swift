import E2EECrypto

/// What one end of a link shows its user, in order (docs/spec/protocol.md §10.11).
public enum LinkStep: Sendable, Hashable {
    /// Waiting for the other device: the new device asked, or the primary opened "link a device".
    case waiting
    /// The primary answered the request of this device of our user.
    case requestReceived(DeviceID)
    /// Show this code to the user, who types it into the other device.
    case showCode(String)
    /// Ask the user for the code the other device shows.
    case enterCode
    /// The primary granted the device a certificate; the new device can take it once its user
    /// has typed the primary's code.
    case granted(DeviceID)
    /// The new device took its certificate: it is linked.
    case linked
    /// The attempt ended; the user starts again on both devices.
    case cancelled(LinkCancelReason)
}
