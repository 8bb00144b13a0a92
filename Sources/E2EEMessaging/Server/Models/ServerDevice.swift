/// One of the account's devices (`GET /devices`). Every register and login adds one; they pile up
/// until deleted (docs/spec/server-api.md §10).
public struct ServerDevice: Sendable, Equatable, Codable {
    /// The device id (the `device_id` of the login that created it).
    public var id: DeviceID
    /// The `device_name` given at register or login.
    public var name: String
    /// Whether it is the device of the token that asked, when the server says so.
    public var isCurrent: Bool?
    /// When it was created, when the server says so.
    public var createdAt: ServerTimestamp?

    enum CodingKeys: String, CodingKey {
        case id, name = "device_name", isCurrent = "is_current", createdAt = "created_at"
    }

    /// A device from its parts.
    public init(id: DeviceID, name: String, isCurrent: Bool?, createdAt: ServerTimestamp?) {
        self.id = id
        self.name = name
        self.isCurrent = isCurrent
        self.createdAt = createdAt
    }
}
