/// The body of `POST /keys/upload` (docs/spec/server-api.md): every published key of this device as the strings
/// docs/spec/protocol.md §1 defines. The upload replaces the whole server-side bundle, one-time list included.
public struct KeyUploadJSON: Codable, Sendable, Hashable {
    /// `device_id`.
    public var deviceID: String
    /// `identity_key`: the identity blob.
    public var identityKey: String
    /// `signed_pre_key`: the 141-byte signed prekey record.
    public var signedPreKey: String
    /// `signed_pre_key_signature`.
    public var signedPreKeySignature: String
    /// `one_time_pre_keys`: the public forms of the prekeys to offer (unconsumed ones only).
    public var oneTimePreKeys: [String]

    /// The upload for `identity`, its current signed prekey carrying `certificate` (the record
    /// signed here by `identity`) and the one-time prekeys to publish.
    public init(deviceID: WireUUID, identity: IdentityKeyPair, signedPrekey: SignedPrekey, certificate: DeviceCertificate = .zero,
                oneTimePrekeys: [OneTimePrekey]) {
        let record = signedPrekey.record(certificate: certificate)
        self.deviceID = deviceID.text
        identityKey = identity.publicIdentity.base64
        signedPreKey = record.base64
        signedPreKeySignature = Base64.encode(record.signature(by: identity))
        oneTimePreKeys = oneTimePrekeys.map(\.published.base64)
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case identityKey = "identity_key"
        case signedPreKey = "signed_pre_key"
        case signedPreKeySignature = "signed_pre_key_signature"
        case oneTimePreKeys = "one_time_pre_keys"
    }
}
