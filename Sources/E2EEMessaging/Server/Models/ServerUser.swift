/// A user as the server describes it (unknown fields are ignored).
public struct ServerUser: Sendable, Equatable, Codable {
    /// The user id.
    public var id: UserID
    /// The username.
    public var username: String
    /// The display name, if set.
    public var displayName: String?
    /// The domain the server looks its users up under (`GET /users/lookup?identity=user@domain`),
    /// when the server says.
    public var serverDomain: String?

    enum CodingKeys: String, CodingKey { case id, username, displayName = "display_name", serverDomain = "server_domain" }

    /// A user from its parts.
    public init(id: UserID, username: String, displayName: String?, serverDomain: String? = nil) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.serverDomain = serverDomain
    }
}
