import E2EECrypto
import E2EEKeyStore

/// A pinned device that presented a different identity (``Account/identityChanges(of:)``):
/// refused and recorded, never trusted silently (docs/spec/protocol.md §2).
public struct IdentityKeyChange: Sendable, Equatable {
    /// The user.
    public var userID: UserID
    /// The device.
    public var deviceID: DeviceID
    /// The identity pinned when it was seen (public key material, the identity blob's bytes).
    public var previousIdentity: [UInt8]
    /// The identity the device presented instead.
    public var presentedIdentity: [UInt8]
    /// When it was seen.
    public var seenAt: StoreTime
    /// Whether the user accepted it (the pin then moved to `presentedIdentity`).
    public var accepted: Bool

    init(_ record: IdentityChange) {
        userID = UserID(stored: record.userID)
        deviceID = DeviceID(stored: record.deviceID)
        previousIdentity = record.previousBlob
        presentedIdentity = record.newBlob
        seenAt = record.seenAt
        accepted = record.accepted
    }
}
