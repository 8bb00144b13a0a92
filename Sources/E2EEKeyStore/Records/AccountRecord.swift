import E2EECrypto

/// The account a store belongs to: server, user and device, and the tokens (sealed at rest).
package struct AccountRecord: Sendable, Equatable {
    /// The server's base URL.
    public var serverURL: String
    /// The server's user id.
    public var userID: String
    /// This device's id, returned by register or login.
    public var deviceID: String
    /// The access token (`nil` after a logout).
    public var accessToken: SecretBytes?
    /// The refresh token (`nil` after a logout).
    public var refreshToken: SecretBytes?
    /// When the row was last written.
    public var updatedAt: StoreTime

    /// Creates an account value.
    public init(serverURL: String, userID: String, deviceID: String, accessToken: SecretBytes?, refreshToken: SecretBytes?, updatedAt: StoreTime) {
        self.serverURL = serverURL
        self.userID = userID
        self.deviceID = deviceID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.updatedAt = updatedAt
    }
}
