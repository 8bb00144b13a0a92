/// A remote device's prekey bundle, parsed strictly and verified (docs/spec/protocol.md §1.5, §10.3,
/// §2 step 1): the signed prekey record is a well-formed version 2 record whose signature checks
/// under the identity's signing key. Only a `PrekeyBundle` can start a session, so an unverified
/// bundle never reaches X3DH.
///
/// The record's certificate decides nothing here: a zero certificate, or one whose `cert_sig`
/// does not verify for this device, leaves the device uncertified and the bundle usable
/// (``verifiedCertificate(forUser:)``). Only a malformed certificate (a user key that fails
/// §0.8, an epoch out of range) refuses the bundle.
public struct PrekeyBundle: Sendable, Hashable {
    /// The device the bundle belongs to.
    public let deviceID: WireUUID
    /// Its identity blob.
    public let identity: IdentityBlob
    /// Its current signed prekey record.
    public let signedPrekey: SignedPrekeyRecord
    /// The verified signature over ``signedPrekey``.
    public let signedPrekeySignature: [UInt8]
    /// A one-time prekey, when the server handed one out.
    public let oneTimePrekey: PublishedOneTimePrekey?

    /// Parses and verifies the server's strings.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` (bad base64, device id, signature length,
    ///   id 0, a certificate epoch out of range), ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   (string too long), ``ProtocolError/truncated(_:expected:actual:)`` /
    ///   ``ProtocolError/trailingBytes(_:count:)`` (wrong length),
    ///   ``ProtocolError/unsupportedVersion(_:value:)`` (text 1.2's record among them),
    ///   ``ProtocolError/invalidKey(_:)`` (non-canonical or low-order key, a certificate's user
    ///   key that fails §0.8), and ``ProtocolError/badSignature`` when the record's signature
    ///   does not verify.
    public init(deviceID: String, identityKey: String, signedPreKey: String, signedPreKeySignature: String, oneTimePreKey: String?) throws {
        let device = try WireUUID(text: deviceID)
        let identity = try IdentityBlob(base64: identityKey)
        let signedPrekey = try SignedPrekeyRecord(base64: signedPreKey)
        let signature = try PublishedBase64.decode(signedPreKeySignature, at: .bundle)
        guard signature.count == Ed25519.signatureLength else {
            throw ProtocolError.malformed(.bundle, reason: "signature is \(signature.count) bytes, expected \(Ed25519.signatureLength)")
        }
        guard identity.signingKey.isValidSignature(signature, for: signedPrekey.signedMessage) else {
            throw ProtocolError.badSignature
        }
        self.deviceID = device
        self.identity = identity
        self.signedPrekey = signedPrekey
        self.signedPrekeySignature = signature
        self.oneTimePrekey = try oneTimePreKey.map { try PublishedOneTimePrekey(base64: $0) }
    }

    /// Parses and verifies one decoded entry of `GET /keys/{user}/bundles`.
    /// - Throws: as ``init(deviceID:identityKey:signedPreKey:signedPreKeySignature:oneTimePreKey:)``.
    public init(_ json: PrekeyBundleJSON) throws {
        try self.init(deviceID: json.deviceID, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                      signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey)
    }

    /// The certificate the record carries, verified or not (``DeviceCertificate/zero``: none).
    public var certificate: DeviceCertificate { signedPrekey.certificate }

    /// The record's certificate when its `cert_sig` verifies for this bundle's device, its
    /// identity blob and `userID`, the user whose listing (`GET /keys/{userID}/bundles`) held the
    /// bundle; `nil` when the device is uncertified (a zero certificate, or a signature made for
    /// another user, device or blob). Whether a verified certificate is current (its dates, its
    /// epoch, the pinned key) is the caller's rule, not this check's.
    public func verifiedCertificate(forUser userID: WireUUID) -> DeviceCertificate? {
        certificate.verifies(userID: userID, deviceID: deviceID, identity: identity) ? certificate : nil
    }
}

/// One bundle as the server sends it (docs/spec/server-api.md `GET /keys/{user_id}/bundles`). Plain strings: it
/// is checked only by ``PrekeyBundle/init(_:)``.
public struct PrekeyBundleJSON: Codable, Sendable, Hashable {
    /// `device_id`.
    public var deviceID: String
    /// `identity_key`.
    public var identityKey: String
    /// `signed_pre_key`.
    public var signedPreKey: String
    /// `signed_pre_key_signature`.
    public var signedPreKeySignature: String
    /// `one_time_pre_key` (null when the device has none left).
    public var oneTimePreKey: String?
    /// `one_time_pre_key_count` (informational; the reference server never lowers it).
    public var oneTimePreKeyCount: Int?

    /// Builds the model from its fields.
    public init(deviceID: String, identityKey: String, signedPreKey: String, signedPreKeySignature: String,
                oneTimePreKey: String?, oneTimePreKeyCount: Int? = nil) {
        self.deviceID = deviceID
        self.identityKey = identityKey
        self.signedPreKey = signedPreKey
        self.signedPreKeySignature = signedPreKeySignature
        self.oneTimePreKey = oneTimePreKey
        self.oneTimePreKeyCount = oneTimePreKeyCount
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case identityKey = "identity_key"
        case signedPreKey = "signed_pre_key"
        case signedPreKeySignature = "signed_pre_key_signature"
        case oneTimePreKey = "one_time_pre_key"
        case oneTimePreKeyCount = "one_time_pre_key_count"
    }
}
