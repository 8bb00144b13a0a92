import E2EEKeyStore

/// A channel member as the server last listed it (``Account/members(of:)``). Being listed decides
/// nothing: who receives a group's keys is this device's decision (docs/spec/protocol.md §5).
public struct ListedMember: Sendable, Equatable, Hashable {
    /// The user.
    public var userID: UserID
    /// The user's name on the server.
    public var username: String
    /// `owner` or `member`.
    public var role: String

    /// A member from its parts.
    public init(userID: UserID, username: String, role: String) {
        self.userID = userID
        self.username = username
        self.role = role
    }

    init(_ record: ChannelMemberRecord) {
        self.init(userID: UserID(stored: record.userID), username: record.username, role: record.role)
    }
}
