import E2EECrypto

/// `E2EE-SIGNED-PREKEY-RECORD` (docs/spec/protocol.md §1.4, §10.3): a valid case's identity blob,
/// certificate, record and signature are recomputed from its private fields, then the bundle
/// made of the published values is read as a contact reads it and must be certified exactly
/// when the case says; an invalid case's bundle must be refused with the `failure` it names.
struct RecordRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-SIGNED-PREKEY-RECORD"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let userID = try WireUUID(text: vector.text("userId")), deviceID = try WireUUID(text: vector.text("deviceId"))
        let published = (blob: try vector.hex("identityBlob"), record: try vector.hex("record"), signature: try vector.hex("recordSignature"))
        guard let certified = vector.fields["certified"]?.bool else { throw VectorFieldError(field: "certified") }
        let readBundle = {
            try PrekeyBundle(deviceID: deviceID.text, identityKey: Base64.encode(published.blob), signedPreKey: Base64.encode(published.record),
                             signedPreKeySignature: Base64.encode(published.signature), oneTimePreKey: nil)
        }
        guard vector.result == .valid else {
            guard !certified, try vector.text("certificate").isEmpty else { return .misrefused("an invalid case that is certified or has a certificate") }
            return try refusal(of: vector) { _ = try readBundle() }
        }
        let identity = try ProtocolKeys.identity(vector, dh: "identityPrivate", seed: "signingSeed")
        let spkID = UInt32(truncatingIfNeeded: try vector.int("signedPrekeyId"))
        let spkKey = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: vector.hex("signedPrekeyPrivate")))
        let userKeySeed = try vector.hex("userKeySeed")
        let issue = (user: try vector.text("certifiedUserId"), device: try vector.text("certifiedDeviceId"),
                     epoch: UInt32(truncatingIfNeeded: try vector.int("epoch")), notAfter: UInt32(truncatingIfNeeded: try vector.int("notAfter")))
        let expectedCertificate = try vector.hex("certificate")
        return refusing {
            let certificate = userKeySeed.isEmpty ? DeviceCertificate.zero : try DeviceCertificate.issue(
                by: Ed25519.PrivateKey(seed: SecretBytes(copying: userKeySeed)), userID: WireUUID(text: issue.user),
                deviceID: WireUUID(text: issue.device), identity: identity.publicIdentity, epoch: issue.epoch, notAfter: issue.notAfter)
            try check(identity.publicIdentity.bytes == published.blob, "identityBlob")
            try check(certificate.bytes == expectedCertificate, "certificate")
            let record = SignedPrekeyRecord(id: spkID, publicKey: spkKey.publicKey, certificate: certificate)
            try check(record.bytes == published.record, "record")
            try check(record.base64.utf8.count == 188, "the record's base64 is not 188 characters")
            try check(record.signature(by: identity) == published.signature, "recordSignature")
            let bundle = try readBundle()
            try check(bundle.signedPrekey == record, "the record does not parse back")
            try check((bundle.verifiedCertificate(forUser: userID) != nil) == certified, "certified")
            return .matched
        }
    }
}
