import E2EECrypto
import FuzzSupport

/// Text 1.3's signed prekey record and device certificate (docs/spec/protocol.md §1.4, §10.3). The
/// first byte picks the variant:
/// - 0: a record's bytes. Property: an accepted record encodes back to the same bytes, its
///   base64 parses to the same value, its certificate is the last 104 bytes, and a bundle of it
///   signed by the device's own key is accepted;
/// - 1: a certificate's bytes. Property: an accepted certificate encodes back, is the zero
///   certificate exactly when all 104 bytes are zero, carries an epoch in range unless zero, and
///   never verifies for a device it was not issued to;
/// - 2: `epoch (u32) || not_after (u32)` issued by a fixed user key for the fixed device.
///   Property: issuing succeeds exactly for an epoch in range; the certificate then parses back
///   and its record's bundle is certified for the user, not for another.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedPrekeyRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    switch selector % 3 {
    case 0: checkRecord(rest)
    case 1: checkCertificate(rest)
    default: checkIssued(rest)
    }
    return 0
}

/// The keys every input is checked against.
private struct Fixture: Sendable {
    let identity = IdentityKeyPair(using: DeterministicRandom(seed: Array("fuzz-record/identity".utf8)))
    let userKey = Ed25519.PrivateKey(using: DeterministicRandom(seed: Array("fuzz-record/user-key".utf8)))
    let spk: SignedPrekey
    let user: WireUUID, otherUser: WireUUID, device: WireUUID

    init() {
        guard let spk = try? SignedPrekey(id: 9, identity: identity, createdAt: 0, using: DeterministicRandom(seed: [9])),
              let user = try? WireUUID(bytes: [UInt8](repeating: 0x11, count: 16)),
              let otherUser = try? WireUUID(bytes: [UInt8](repeating: 0x12, count: 16)),
              let device = try? WireUUID(bytes: [UInt8](repeating: 0x22, count: 16)) else { fatalError("fixed, valid inputs") }
        (self.spk, self.user, self.otherUser, self.device) = (spk, user, otherUser, device)
    }

    func bundle(_ record: SignedPrekeyRecord) throws -> PrekeyBundle {
        try PrekeyBundle(deviceID: device.text, identityKey: identity.publicIdentity.base64, signedPreKey: record.base64,
                         signedPreKeySignature: Base64.encode(record.signature(by: identity)), oneTimePreKey: nil)
    }
}

private let fixture = Fixture()

private func checkRecord(_ bytes: [UInt8]) {
    guard let record = try? SignedPrekeyRecord(bytes: bytes) else { return }
    PropertyCheck.require(record.bytes == bytes, "a record re-encodes to other bytes")
    PropertyCheck.require((try? SignedPrekeyRecord(base64: record.base64)) == record, "record base64 round trip")
    PropertyCheck.require(record.certificate.bytes == Array(bytes[37...]), "the certificate is not the record's last 104 bytes")
    let bundle = try? fixture.bundle(record)
    PropertyCheck.require(bundle?.signedPrekey == record, "a well-formed record signed by its device is refused")
}

private func checkCertificate(_ bytes: [UInt8]) {
    guard let certificate = try? DeviceCertificate(bytes: bytes) else { return }
    PropertyCheck.require(certificate.bytes == bytes, "a certificate re-encodes to other bytes")
    PropertyCheck.require(certificate.isZero == bytes.allSatisfy { $0 == 0 }, "zero certificate and zero bytes disagree")
    PropertyCheck.require(certificate.isZero || DeviceCertificate.epochRange.contains(certificate.epoch), "an epoch out of range was accepted")
    // Nothing the fuzzer makes is signed by the fixture's user key for the fixture's device.
    let identity = fixture.identity.publicIdentity
    PropertyCheck.require(!certificate.verifies(userID: fixture.user, deviceID: fixture.device, identity: identity)
                          || certificate.userKey != fixture.userKey.publicKey, "a certificate nobody issued verifies")
}

private func checkIssued(_ bytes: [UInt8]) {
    guard bytes.count >= 8 else { return }
    let epoch = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let notAfter = bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let identity = fixture.identity.publicIdentity
    let issued = try? DeviceCertificate.issue(by: fixture.userKey, userID: fixture.user, deviceID: fixture.device, identity: identity,
                                              epoch: epoch, notAfter: notAfter)
    PropertyCheck.require((issued != nil) == DeviceCertificate.epochRange.contains(epoch), "issuing and the epoch range disagree")
    guard let issued else { return }
    PropertyCheck.require((try? DeviceCertificate(bytes: issued.bytes)) == issued, "an issued certificate does not parse back")
    guard let bundle = try? fixture.bundle(fixture.spk.record(certificate: issued)) else {
        PropertyCheck.require(false, "the record of an issued certificate is refused")
        return
    }
    PropertyCheck.require(bundle.verifiedCertificate(forUser: fixture.user) == issued, "an issued certificate does not verify")
    PropertyCheck.require(bundle.verifiedCertificate(forUser: fixture.otherUser) == nil, "a certificate verifies for another user")
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_signed_prekey_record_main")
public func fuzzSignedPrekeyRecordMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzSignedPrekeyRecord)
}
