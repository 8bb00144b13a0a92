/// The certificate a user key gives one device (docs/spec/protocol.md §1.4, §10.3):
/// `UMK_pub (32) || epoch (u32) || not_after (u32) || cert_sig (64)`, 104 bytes, carried in the
/// device's signed prekey record. 104 zero bytes mean "no certificate" (``zero``).
///
/// `cert_sig = Ed25519-sign(UMK, "e2ee-device-cert-v1" || user_id || device_id || IK_pub ||
/// SIG_pub || UMK_pub || epoch || not_after)`: it binds the user key to one user, one device and
/// that device's identity blob. Parsing checks the form only; whether the signature holds for a
/// given device is ``verifies(userID:deviceID:identity:)``. Public, like the record.
public struct DeviceCertificate: Sendable, Hashable {
    /// The length in bytes.
    public static let length = 104
    /// The label prefixed to the signed fields.
    public static let signatureLabel = Array("e2ee-device-cert-v1".utf8)
    /// The epochs a certificate may carry: 0 and 2³² − 1 are refused.
    public static let epochRange: ClosedRange<UInt32> = 1...(UInt32.max - 1)
    /// "No certificate": the 104 zero bytes every device publishes until it is linked.
    public static let zero = DeviceCertificate(zeroBytes: ())

    /// `UMK_pub`, the user key that signed (32 zero bytes in ``zero``, which is not a valid key).
    public let userKey: Ed25519.PublicKey
    /// The epoch, in ``epochRange`` (0 in ``zero``).
    public let epoch: UInt32
    /// The last second the certificate is meant for, unix seconds (0 in ``zero``).
    public let notAfter: UInt32
    /// `cert_sig`, 64 bytes (not checked by parsing).
    public let signature: [UInt8]

    /// Whether this is the zero certificate ("no certificate").
    public var isZero: Bool { self == .zero }

    private init(zeroBytes: Void) {
        userKey = Ed25519.PublicKey(unchecked: [UInt8](repeating: 0, count: Ed25519.publicKeyLength))
        epoch = 0
        notAfter = 0
        signature = [UInt8](repeating: 0, count: Ed25519.signatureLength)
    }

    private init(userKey: Ed25519.PublicKey, epoch: UInt32, notAfter: UInt32, signature: [UInt8]) {
        self.userKey = userKey
        self.epoch = epoch
        self.notAfter = notAfter
        self.signature = signature
    }

    /// Parses 104 received bytes strictly. All zero is ``zero``; anything else is a certificate,
    /// however many of its bytes are zero, and must carry a user key that passes §0.8 and an
    /// epoch in ``epochRange``. The signature is not checked here.
    /// - Throws: at ``WireLocation/certificate``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/invalidKey(_:)`` for the user
    ///   key, ``ProtocolError/malformed(_:reason:)`` for an epoch out of range.
    public init(bytes: [UInt8]) throws {
        var reader = WireReader(bytes, location: .certificate)
        try self.init(reading: &reader)
        try reader.requireEnd()
    }

    /// Reads a certificate from the middle of a larger structure (the record).
    init(reading reader: inout WireReader) throws {
        let raw = try reader.readBytes(Self.length)
        guard raw.contains(where: { $0 != 0 }) else {
            self = .zero
            return
        }
        var fields = WireReader(raw, location: .certificate)
        let userKey = try Ed25519.PublicKey.received(fields.readBytes(Ed25519.publicKeyLength), at: .certificate)
        let epoch = try fields.readUInt32()
        try Self.requireEpochInRange(epoch)
        let notAfter = try fields.readUInt32()
        self.init(userKey: userKey, epoch: epoch, notAfter: notAfter, signature: try fields.readBytes(Ed25519.signatureLength))
    }

    /// A certificate for the device `deviceID` of `userID` whose identity blob is `identity`,
    /// signed with the user key `userKey` (a primary device's act; tests mint with it too).
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/certificate`` for an
    ///   epoch outside ``epochRange``.
    public static func issue(by userKey: Ed25519.PrivateKey, userID: WireUUID, deviceID: WireUUID, identity: IdentityBlob,
                             epoch: UInt32, notAfter: UInt32) throws -> DeviceCertificate {
        try requireEpochInRange(epoch)
        let message = signedMessage(userID: userID, deviceID: deviceID, identity: identity, userKey: userKey.publicKey,
                                    epoch: epoch, notAfter: notAfter)
        return DeviceCertificate(userKey: userKey.publicKey, epoch: epoch, notAfter: notAfter, signature: userKey.signature(for: message))
    }

    /// Whether `cert_sig` verifies under ``userKey`` for the device `deviceID` of `userID` with
    /// the identity blob `identity` (libsodium's verification, in constant time for the key and
    /// signature). Always `false` for ``zero``.
    public func verifies(userID: WireUUID, deviceID: WireUUID, identity: IdentityBlob) -> Bool {
        guard !isZero else { return false }
        let message = Self.signedMessage(userID: userID, deviceID: deviceID, identity: identity, userKey: userKey,
                                         epoch: epoch, notAfter: notAfter)
        return userKey.isValidSignature(signature, for: message)
    }

    /// The 104 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(userKey.rawRepresentation)
        writer.write(epoch)
        writer.write(notAfter)
        writer.write(signature)
        return writer.bytes
    }

    /// What the user key signs: `"e2ee-device-cert-v1" || user_id || device_id || IK_pub ||
    /// SIG_pub || UMK_pub || epoch || not_after`.
    static func signedMessage(userID: WireUUID, deviceID: WireUUID, identity: IdentityBlob, userKey: Ed25519.PublicKey,
                              epoch: UInt32, notAfter: UInt32) -> [UInt8] {
        var writer = WireWriter()
        writer.write(signatureLabel)
        writer.write(userID)
        writer.write(deviceID)
        writer.write(identity.dhKey.rawRepresentation)
        writer.write(identity.signingKey.rawRepresentation)
        writer.write(userKey.rawRepresentation)
        writer.write(epoch)
        writer.write(notAfter)
        return writer.bytes
    }

    private static func requireEpochInRange(_ epoch: UInt32) throws {
        guard epochRange.contains(epoch) else {
            throw ProtocolError.malformed(.certificate, reason: "epoch \(epoch) outside \(epochRange.lowerBound)…\(epochRange.upperBound)")
        }
    }
}
