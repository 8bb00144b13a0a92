/// Why a device of a user with a pinned key is not (or no longer) linked
/// (docs/spec/protocol.md §10.7).
public enum DeviceUnlinkReason: String, Sendable, Equatable, CaseIterable {
    /// Its certificate is below the user's highest epoch, or the device is no longer listed.
    case removed
    /// Its certificate is no longer current (past `not_after` and its grace, or dated too far ahead).
    case expired
    /// It carries a certificate under another user key.
    case replaced
    /// Its record or certificate does not verify.
    case invalid
    /// It carries no certificate.
    case legacy
}
