/// A channel as the server describes it.
public struct ServerChannel: Sendable, Equatable, Codable {
    /// The channel id.
    public var id: ChannelID
    /// The name (nil for DMs).
    public var name: String?
    /// Whether it is a direct message.
    public var isDM: Bool
    /// Whether it is federated.
    public var isFederated: Bool
    /// `sender_keys` for groups, `x3dh` for DMs.
    public var encryptionType: String
    /// The creator, if known.
    public var createdBy: UserID?
    /// Creation time.
    public var createdAt: ServerTimestamp

    enum CodingKeys: String, CodingKey {
        case id, name, isDM = "is_dm", isFederated = "is_federated", encryptionType = "encryption_type"
        case createdBy = "created_by", createdAt = "created_at"
    }
}

/// A channel member.
public struct ChannelMember: Sendable, Equatable, Codable {
    /// The user id.
    public var userID: UserID
    /// The username.
    public var username: String
    /// `owner` or `member`.
    public var role: String
    /// When they joined.
    public var joinedAt: ServerTimestamp
    /// The display name, if set.
    public var displayName: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", username, role, joinedAt = "joined_at", displayName = "display_name"
    }
}
