/// Whether the user has verified a device's identity (safety number compared).
package enum VerificationState: String, Sendable, Equatable, CaseIterable {
    /// Trusted on first use only.
    case unverified
    /// Verified by the user.
    case verified
}

/// The identity blob pinned for a remote (user, device) on first use.
package struct RemoteIdentity: Sendable, Equatable {
    /// The user.
    public var userID: String
    /// The device.
    public var deviceID: String
    /// The 65-byte identity blob (public).
    public var identityBlob: [UInt8]
    /// When it was first seen.
    public var firstSeenAt: StoreTime
    /// The verification state.
    public var verification: VerificationState

    /// Creates the value.
    public init(userID: String, deviceID: String, identityBlob: [UInt8], firstSeenAt: StoreTime, verification: VerificationState) {
        self.userID = userID
        self.deviceID = deviceID
        self.identityBlob = identityBlob
        self.firstSeenAt = firstSeenAt
        self.verification = verification
    }
}

/// A different identity blob seen for a pinned device.
package struct IdentityChange: Sendable, Equatable {
    /// The store's id for the change record.
    public var id: Int64
    /// The user.
    public var userID: String
    /// The device.
    public var deviceID: String
    /// The pinned blob at the time.
    public var previousBlob: [UInt8]
    /// The blob that was offered.
    public var newBlob: [UInt8]
    /// When it was seen.
    public var seenAt: StoreTime
    /// Whether the user accepted it (the pin then moved to `newBlob`).
    public var accepted: Bool
}

/// What ``KeyStore/recordIdentity(_:at:)`` found.
package enum IdentityRecordResult: Sendable, Equatable {
    /// The device was not known: the blob is now pinned.
    case pinned
    /// The blob equals the pin.
    case matches
    /// The blob differs from the pin: the pin is kept and the change recorded.
    case changed(IdentityChange)
    /// The blob differs from the pin exactly as a change already recorded and not yet accepted:
    /// the pin is kept and nothing new is stored (a refresh does not report the change again).
    case changeAlreadyRecorded(IdentityChange)
}
