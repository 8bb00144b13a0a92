import E2EECrypto

/// A device of a user as the directory last verified it: its bundle parsed, its signed prekey
/// signature checked, its identity equal to the pin (or pinned now).
public struct RemoteDevice: Sendable, Equatable {
    /// The user.
    public let userID: UserID
    /// The device (lower-case UUID text).
    public let deviceID: DeviceID
    /// Its identity blob (the pinned one).
    public let identity: IdentityBlob
    /// The verified bundle, for starting a session.
    public let bundle: PrekeyBundle

    /// Creates the value.
    public init(userID: UserID, deviceID: DeviceID, identity: IdentityBlob, bundle: PrekeyBundle) {
        self.userID = userID
        self.deviceID = deviceID
        self.identity = identity
        self.bundle = bundle
    }
}
