/// Why nothing is encrypted for a user with user-key certificates (docs/spec/protocol.md §10.5,
/// §10.7, §10.17).
public enum UnresolvedUserKey: String, Sendable, Equatable, CaseIterable {
    /// Current certificates under two or more keys, and the app has pinned none.
    case conflicted
    /// No listed device is linked under the pinned key (or, at first contact, no certificate is current).
    case noVerifiedDevice
    /// A key change is due and waits for the app's acceptance.
    case changePending
}
