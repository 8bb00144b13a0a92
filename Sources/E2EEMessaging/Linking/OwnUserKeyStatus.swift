import Foundation

/// Our own user's key as this device stands under it (docs/spec/protocol.md §3 "State"), from
/// ``Account/ownUserKey()``. Public data only.
public struct OwnUserKeyStatus: Sendable, Equatable {
    /// This device's role.
    public enum Role: String, Sendable, Equatable {
        /// This device holds the user key (in its primary file) and certifies the devices.
        case primary
        /// This device carries a certificate from the primary.
        case linked
        /// The account has a key but this device is not linked under it.
        case unlinked
        /// The account has no user key: text 1.2 applies.
        case noKey
    }

    /// An own device trusted under text 1.2 before the account had a key.
    public struct LegacyDevice: Sendable, Equatable {
        /// The device.
        public var deviceID: DeviceID
        /// When it stops being a recipient unless linked before.
        public var lapsesAt: Date
    }

    /// The role.
    public var role: Role
    /// Our user key (nil without one).
    public var key: UserKey?
    /// The epoch of this device's certificate (nil without one).
    public var epoch: UInt32?
    /// When this device's certificate ends (nil without one).
    public var notAfter: Date?
    /// The primary device.
    public var primary: DeviceID?
    /// The legacy own devices.
    public var legacyDevices: [LegacyDevice]
    /// Why issuing stopped on this primary, if it did.
    public var issuingStopped: IssuingStopReason?
    /// On a primary: its store is behind its primary file's trust counter (restored from an
    /// older copy), so no transfer sends its manifest until the user confirms the trust state
    /// shown (``Account/confirmTrustState()``, docs/spec/protocol.md §11.3).
    public var trustStateUnconfirmed: Bool = false
}
