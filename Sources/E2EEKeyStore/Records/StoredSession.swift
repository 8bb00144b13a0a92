import E2EECrypto

/// A pairwise session with one remote device, as opaque serialised protocol state.
package struct StoredSession: Sendable, Equatable {
    /// The store's id for this session (a UUID string chosen when it is installed).
    public var id: String
    /// The remote user.
    public var remoteUserID: String
    /// The remote device.
    public var remoteDeviceID: String
    /// `true` for the device's current session; others are archived.
    public var isCurrent: Bool
    /// The serialised session state (sealed at rest).
    public var state: SecretBytes
    /// When it was installed.
    public var createdAt: StoreTime
    /// When its state was last stored.
    public var updatedAt: StoreTime

    /// Creates the value.
    public init(id: String, remoteUserID: String, remoteDeviceID: String, isCurrent: Bool, state: SecretBytes, createdAt: StoreTime, updatedAt: StoreTime) {
        self.id = id
        self.remoteUserID = remoteUserID
        self.remoteDeviceID = remoteDeviceID
        self.isCurrent = isCurrent
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
