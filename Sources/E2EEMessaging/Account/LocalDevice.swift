import E2EECrypto

/// This device as the protocol sees it: who we are and our identity keys.
@_spi(Benchmarks) public struct LocalDevice: Sendable {
    /// Our user id.
    public let userID: UserID
    /// Our device id (from register or login).
    public let deviceID: DeviceID
    /// Our identity key pair (private parts in `SecretBytes`).
    public let identity: IdentityKeyPair

    /// Creates the value.
    public init(userID: UserID, deviceID: DeviceID, identity: IdentityKeyPair) {
        self.userID = userID
        self.deviceID = deviceID
        self.identity = identity
    }
}
