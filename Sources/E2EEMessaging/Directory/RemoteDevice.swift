import E2EECrypto

/// A device of a user as the directory last verified it: its bundle parsed, its signed prekey
/// record's signature checked, its identity equal to the pin (or pinned now).
public struct RemoteDevice: Sendable, Equatable {
    /// The user.
    public let userID: UserID
    /// The device (lower-case UUID text).
    public let deviceID: DeviceID
    /// Its identity blob (the pinned one).
    public let identity: IdentityBlob
    /// The verified bundle, for starting a session.
    public let bundle: PrekeyBundle
    /// The certificate of the device's record when its `cert_sig` verifies for ``userID``, this
    /// device and its identity blob (docs/spec/protocol.md §10.3); `nil`: the device is
    /// uncertified (a zero certificate, or one made for another user, device or blob). Whether
    /// it is current is not decided here.
    public let verifiedCertificate: DeviceCertificate?

    /// Creates the value; ``verifiedCertificate`` is checked here, from `userID` and `bundle`.
    public init(userID: UserID, deviceID: DeviceID, identity: IdentityBlob, bundle: PrekeyBundle) {
        self.userID = userID
        self.deviceID = deviceID
        self.identity = identity
        self.bundle = bundle
        // A user id that is not a UUID cannot have been certified.
        verifiedCertificate = bundle.certificate.isZero ? nil : (try? WireUUID(text: userID.rawValue)).flatMap(bundle.verifiedCertificate(forUser:))
    }
}
