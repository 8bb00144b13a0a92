/// A device's published prekey bundle (opaque strings: the server never checks them).
public struct DeviceBundle: Sendable, Equatable, Codable {
    /// The device id.
    public var deviceID: DeviceID
    /// The identity key.
    public var identityKey: String
    /// The signed prekey.
    public var signedPreKey: String
    /// Its signature.
    public var signedPreKeySignature: String
    /// One one-time prekey (the server may hand out the same one again), or nil.
    public var oneTimePreKey: String?
    /// How many one-time prekeys the server holds (never falls on the reference server).
    public var oneTimePreKeyCount: Int

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", identityKey = "identity_key", signedPreKey = "signed_pre_key"
        case signedPreKeySignature = "signed_pre_key_signature", oneTimePreKey = "one_time_pre_key"
        case oneTimePreKeyCount = "one_time_pre_key_count"
    }
}

/// The body of `POST /keys/upload` (replaces the whole bundle and one-time list).
public struct KeyBundleUpload: Sendable, Equatable, Codable {
    /// The caller's device.
    public var deviceID: DeviceID
    /// The identity key.
    public var identityKey: String
    /// The signed prekey.
    public var signedPreKey: String
    /// Its signature.
    public var signedPreKeySignature: String
    /// The full one-time prekey list.
    public var oneTimePreKeys: [String]

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", identityKey = "identity_key", signedPreKey = "signed_pre_key"
        case signedPreKeySignature = "signed_pre_key_signature", oneTimePreKeys = "one_time_pre_keys"
    }

    /// An upload from its parts.
    public init(deviceID: DeviceID, identityKey: String, signedPreKey: String, signedPreKeySignature: String, oneTimePreKeys: [String]) {
        self.deviceID = deviceID
        self.identityKey = identityKey
        self.signedPreKey = signedPreKey
        self.signedPreKeySignature = signedPreKeySignature
        self.oneTimePreKeys = oneTimePreKeys
    }
}
