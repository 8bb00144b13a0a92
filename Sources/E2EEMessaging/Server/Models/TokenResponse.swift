/// The answer to register, login and refresh. Its description never shows the tokens.
public struct TokenResponse: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The bearer access token (15 minutes).
    public var accessToken: String
    /// The refresh token (7 days, rotated by every refresh).
    public var refreshToken: String
    /// Always `bearer`.
    public var tokenType: String
    /// The account's user id.
    public var userID: UserID
    /// The device this login created.
    public var deviceID: DeviceID

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", tokenType = "token_type"
        case userID = "user_id", deviceID = "device_id"
    }

    /// A token response from its parts.
    public init(accessToken: String, refreshToken: String, tokenType: String = "bearer", userID: UserID, deviceID: DeviceID) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.userID = userID
        self.deviceID = deviceID
    }

    /// Ids only; the tokens are redacted.
    public var description: String { "TokenResponse(user: \(userID), device: \(deviceID), tokens: <redacted>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
}
