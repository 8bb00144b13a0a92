/// A user as the server describes it (unknown fields are ignored).
public struct ServerUser: Sendable, Equatable, Codable {
    /// The user id.
    public var id: String
    /// The username.
    public var username: String
    /// The display name, if set.
    public var displayName: String?

    enum CodingKeys: String, CodingKey { case id, username, displayName = "display_name" }

    /// A user from its parts.
    public init(id: String, username: String, displayName: String?) {
        self.id = id
        self.username = username
        self.displayName = displayName
    }
}
