import Foundation

/// What this device knows of a contact's user key (docs/spec/protocol.md §10), for a screen that
/// shows it: ``Account/userKey(of:)``.
public struct UserKeyInfo: Sendable, Equatable {
    /// Where the user stands.
    public enum State: Sendable, Equatable {
        /// Not met yet: the next listing read decides (§10.5).
        case unknown
        /// Met, without a user key: text 1.2's approvals apply.
        case none
        /// One key pinned (``UserKeyInfo/key``); ``UserKeyInfo/verified`` after comparing.
        case pinned
        /// Several keys and none pinned: nothing is sent until the app pins one.
        case conflicted
    }

    /// A key change that became due and waits for ``Account/acceptUserKeyChange(of:)``.
    public struct Change: Sendable, Equatable {
        /// The new key; `nil`: the user no longer uses one.
        public var to: UserKey?
        /// When the change became due.
        public var dueAt: Date
        /// Whether a device linked under the old key carries the new one.
        public var vouched: Bool
        /// Whether the old key was verified.
        public var wasVerified: Bool
    }

    /// The user.
    public var userID: UserID
    /// The state.
    public var state: State
    /// The pinned key.
    public var key: UserKey?
    /// Whether the pinned key was marked verified (``Account/markUserKeyVerified(of:)``).
    public var verified: Bool
    /// The latest end of a certificate seen under the pinned key.
    public var seenUntil: Date?
    /// When this device last read a current certificate under the pinned key.
    public var lastSeen: Date?
    /// A due change waiting for the app.
    public var change: Change?
    /// The other keys seen listed for the user (never trusted until pinned).
    public var otherKeys: [UserKey]
}
