@testable import E2EECrypto
import Testing

/// Text 1.3's device certificate and signed prekey record (docs/spec/protocol.md §1.4, §10.3):
/// issuing, strict parsing with typed refusals, and what leaves a device uncertified.
@Suite("Keys: device certificates and signed prekey records")
struct DeviceCertificateTests {
    /// B + a point of order 8: decodes, not of small order, outside the prime-order subgroup.
    static let torsionPoint: [UInt8] = [
        0xda, 0x99, 0xe2, 0x8b, 0xa5, 0x29, 0xcd, 0xde, 0x35, 0xa2, 0x5f, 0xba, 0x90, 0x59, 0xe7, 0x8e,
        0xca, 0xee, 0x23, 0x9f, 0x99, 0x75, 0x5b, 0x9b, 0x1a, 0xa4, 0xf6, 0x5d, 0xf0, 0x08, 0x03, 0xe2,
    ]

    let device: SessionTestDevice
    let other: SessionTestDevice
    let user: WireUUID
    let otherUser: WireUUID
    let userKey = Ed25519.PrivateKey(using: DeterministicRandom(seed: [0x55]))

    init() throws {
        device = try SessionTestDevice(seed: 21)
        other = try SessionTestDevice(seed: 22)
        user = try WireUUID(text: "0a0b0c0d-0000-4000-8000-000000000001")
        otherUser = try WireUUID(text: "0a0b0c0d-0000-4000-8000-000000000002")
    }

    /// A big-endian `u32`.
    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

    func issue(epoch: UInt32 = 1, notAfter: UInt32 = 1_766_000_000) throws -> DeviceCertificate {
        try DeviceCertificate.issue(by: userKey, userID: self.user, deviceID: device.deviceID, identity: device.blob, epoch: epoch, notAfter: notAfter)
    }

    /// A certificate of `userKey` bytes and `epoch`, the rest taken from a good one.
    func certificateBytes(userKey: [UInt8], epoch: UInt32) throws -> [UInt8] {
        let good = try issue().bytes
        return userKey + Self.u32(epoch) + good[36...]
    }

    /// The bundle of `device` publishing `record` (signed by its SIG unless `signature` is given).
    func bundle(_ record: [UInt8], signature: [UInt8]? = nil) throws -> PrekeyBundle {
        let signature = signature ?? device.identity.signingKey.signature(for: SignedPrekeyRecord.signatureLabel + record)
        return try PrekeyBundle(deviceID: device.deviceID.text, identityKey: device.blob.base64, signedPreKey: Base64.encode(record),
                                signedPreKeySignature: Base64.encode(signature), oneTimePreKey: nil)
    }

    var spk: SignedPrekey { device.signedPrekeys[0] }

    @Test("an issued certificate is 104 bytes, parses back, and verifies only for its user, device and blob")
    func issueParseVerify() throws {
        let certificate = try issue(epoch: 7, notAfter: 1_800_000_000)
        #expect(certificate.bytes.count == 104)
        #expect(Array(certificate.bytes[0..<32]) == userKey.publicKey.rawRepresentation)
        #expect(Array(certificate.bytes[32..<40]) == [0, 0, 0, 7] + Self.u32(UInt32(1_800_000_000)))
        #expect(certificate.epoch == 7 && certificate.notAfter == 1_800_000_000 && !certificate.isZero)
        #expect(try DeviceCertificate(bytes: certificate.bytes) == certificate)
        #expect(certificate.verifies(userID: self.user, deviceID: device.deviceID, identity: device.blob))
        #expect(!certificate.verifies(userID: self.otherUser, deviceID: device.deviceID, identity: device.blob))
        #expect(!certificate.verifies(userID: self.user, deviceID: other.deviceID, identity: device.blob))
        #expect(!certificate.verifies(userID: self.user, deviceID: device.deviceID, identity: other.blob))
        let flipped = try DeviceCertificate(bytes: certificate.bytes.flipping(90))
        #expect(!flipped.verifies(userID: self.user, deviceID: device.deviceID, identity: device.blob))
        // The signed fields, exactly as §1.4 lists them.
        let message = Array("e2ee-device-cert-v1".utf8) + self.user.bytes + device.deviceID.bytes + device.blob.dhKey.rawRepresentation
            + device.blob.signingKey.rawRepresentation + userKey.publicKey.rawRepresentation + [0, 0, 0, 7] + Self.u32(UInt32(1_800_000_000))
        #expect(userKey.publicKey.isValidSignature(certificate.signature, for: message))
    }

    @Test("104 zero bytes are the zero certificate, which never verifies; partly zero bytes are a certificate")
    func zeroCertificate() throws {
        let zero = try DeviceCertificate(bytes: [UInt8](repeating: 0, count: 104))
        #expect(zero == .zero && zero.isZero)
        #expect(DeviceCertificate.zero.bytes == [UInt8](repeating: 0, count: 104))
        #expect(!zero.verifies(userID: self.user, deviceID: device.deviceID, identity: device.blob))
        // A valid key and epoch with an all-zero signature: a certificate that does not verify.
        let zeroSignature = try DeviceCertificate(bytes: Array(try issue().bytes[0..<40]) + [UInt8](repeating: 0, count: 64))
        #expect(!zeroSignature.isZero)
        #expect(!zeroSignature.verifies(userID: self.user, deviceID: device.deviceID, identity: device.blob))
        // A single non-zero byte makes the zero user key a key that fails §0.8.
        #expect(throws: ProtocolError.invalidKey(.certificate)) {
            try DeviceCertificate(bytes: [UInt8](repeating: 0, count: 103) + [1])
        }
    }

    @Test("certificate refusals: length, a user key failing §0.8, an epoch of 0 or 2^32 − 1")
    func certificateRefusals() throws {
        let good = try issue().bytes
        #expect(throws: ProtocolError.truncated(.certificate, expected: 104, actual: 103)) { try DeviceCertificate(bytes: Array(good.dropLast())) }
        #expect(throws: ProtocolError.trailingBytes(.certificate, count: 1)) { try DeviceCertificate(bytes: good + [0]) }
        for badKey in [DeviceKeysTests.smallOrderEd25519, Self.torsionPoint, [UInt8](repeating: 0, count: 32)] {
            #expect(throws: ProtocolError.invalidKey(.certificate)) { try DeviceCertificate(bytes: self.certificateBytes(userKey: badKey, epoch: 1)) }
        }
        let key = userKey.publicKey.rawRepresentation
        #expect(throws: ProtocolError.malformed(.certificate, reason: "epoch 0 outside 1…4294967294")) {
            try DeviceCertificate(bytes: self.certificateBytes(userKey: key, epoch: 0))
        }
        #expect(throws: ProtocolError.malformed(.certificate, reason: "epoch 4294967295 outside 1…4294967294")) {
            try DeviceCertificate(bytes: self.certificateBytes(userKey: key, epoch: .max))
        }
        #expect(try DeviceCertificate(bytes: certificateBytes(userKey: key, epoch: .max - 1)).epoch == .max - 1)
        #expect(throws: ProtocolError.malformed(.certificate, reason: "epoch 0 outside 1…4294967294")) { try self.issue(epoch: 0) }
        #expect(throws: ProtocolError.malformed(.certificate, reason: "epoch 4294967295 outside 1…4294967294")) { try self.issue(epoch: .max) }
    }

    @Test("a record carries its certificate: 141 bytes that parse back, the certificate's refusals refuse the record")
    func recordWithCertificate() throws {
        let certificate = try issue()
        let record = spk.record(certificate: certificate)
        #expect(record.bytes.count == 141 && record.base64.count == 188)
        #expect(Array(record.bytes[37...]) == certificate.bytes)
        #expect(try SignedPrekeyRecord(bytes: record.bytes) == record)
        let head = Array(record.bytes[0..<37])
        #expect(throws: ProtocolError.invalidKey(.certificate)) {
            try SignedPrekeyRecord(bytes: head + self.certificateBytes(userKey: Self.torsionPoint, epoch: 1))
        }
        #expect(throws: ProtocolError.malformed(.certificate, reason: "epoch 0 outside 1…4294967294")) {
            try SignedPrekeyRecord(bytes: head + self.certificateBytes(userKey: self.userKey.publicKey.rawRepresentation, epoch: 0))
        }
        #expect(throws: ProtocolError.unsupportedVersion(.signedPrekey, value: 1)) { try SignedPrekeyRecord(bytes: [1] + record.bytes[1..<37]) }
        #expect(throws: ProtocolError.truncated(.signedPrekey, expected: 1, actual: 0)) { try SignedPrekeyRecord(bytes: []) }
    }

    @Test("§10.3: a certified bundle is certified for its user; a cert_sig for someone else leaves it uncertified and usable")
    func bundleCertification() throws {
        let certified = try bundle(spk.record(certificate: issue()).bytes)
        #expect(certified.verifiedCertificate(forUser: self.user) == (try issue()))
        #expect(certified.verifiedCertificate(forUser: self.otherUser) == nil)
        // Made for another device: parses, is not certified here, and X3DH still runs on it.
        let transplanted = try DeviceCertificate.issue(by: userKey, userID: self.user, deviceID: other.deviceID, identity: device.blob,
                                                       epoch: 1, notAfter: 1_766_000_000)
        let uncertified = try bundle(spk.record(certificate: transplanted).bytes)
        #expect(uncertified.verifiedCertificate(forUser: self.user) == nil)
        #expect(uncertified.certificate == transplanted)
        _ = try X3DH.initiate(localIdentity: other.identity, bundle: uncertified, pinnedIdentity: nil)
        let zero = try bundle(spk.published.bytes)
        #expect(zero.certificate.isZero && zero.verifiedCertificate(forUser: self.user) == nil)
    }

    @Test("§10.3: SIG's signature covers the certificate; a bad one, or text 1.2's label, refuses the bundle")
    func bundleSignatureCoversCertificate() throws {
        let record = spk.record(certificate: try issue()).bytes
        let signature = device.identity.signingKey.signature(for: SignedPrekeyRecord.signatureLabel + record)
        #expect(throws: ProtocolError.badSignature) { try self.bundle(record.flipping(76), signature: signature) }
        #expect(throws: ProtocolError.badSignature) { try self.bundle(record, signature: signature.flipping(40)) }
        let oldLabel = device.identity.signingKey.signature(for: Array("e2ee-spk-v1".utf8) + record)
        #expect(throws: ProtocolError.badSignature) { try self.bundle(record, signature: oldLabel) }
        // The user key cannot stand in for SIG.
        #expect(throws: ProtocolError.badSignature) {
            try self.bundle(record, signature: self.userKey.signature(for: SignedPrekeyRecord.signatureLabel + record))
        }
    }
}

extension [UInt8] {
    /// A copy with bit 0 of byte `index` flipped.
    func flipping(_ index: Int) -> [UInt8] {
        var copy = self
        copy[index] ^= 0x01
        return copy
    }
}
