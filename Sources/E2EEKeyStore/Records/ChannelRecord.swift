/// A channel the account belongs to, as last read from the server.
package struct ChannelRecord: Sendable, Equatable {
    /// The channel id.
    public var id: String
    /// Its name (`nil` for DMs).
    public var name: String?
    /// Whether it is a direct message.
    public var isDM: Bool
    /// `sender_keys` (groups) or `x3dh` (DMs), as the server says.
    public var encryptionType: String
    /// Its creator, if known.
    public var createdBy: String?
    /// When it was created.
    public var createdAt: StoreTime
    /// When its members were last read (`nil`: stale).
    public var membersFetchedAt: StoreTime?

    /// Creates the value.
    public init(id: String, name: String?, isDM: Bool, encryptionType: String, createdBy: String?, createdAt: StoreTime, membersFetchedAt: StoreTime?) {
        self.id = id
        self.name = name
        self.isDM = isDM
        self.encryptionType = encryptionType
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.membersFetchedAt = membersFetchedAt
    }
}

/// A member of a channel, as last read from `GET …/members`.
package struct ChannelMemberRecord: Sendable, Equatable, Hashable {
    /// The user.
    public var userID: String
    /// The user name.
    public var username: String
    /// `owner` or `member`.
    public var role: String

    /// Creates the value.
    public init(userID: String, username: String, role: String) {
        self.userID = userID
        self.username = username
        self.role = role
    }
}

/// A device that holds one of our sender keys.
package struct SenderKeyShare: Sendable, Equatable, Hashable {
    /// The device's user.
    public var userID: String
    /// The device.
    public var deviceID: String

    /// Creates the value.
    public init(userID: String, deviceID: String) {
        self.userID = userID
        self.deviceID = deviceID
    }
}
