import E2EEConformance
@testable import E2EECrypto

/// `records_test.json`: signed prekey records of protocol text 1.3 (docs/spec/protocol.md §1.4,
/// §10.3) — the zero certificate, certified records, certificates that do not verify for the
/// device (uncertified, still valid), and every record §10.3 refuses. Seed
/// `"e2ee-vectors/records"`: the user id, the device id, another user id, another device id (16
/// bytes each), the device's identity (`IK` scalar, `SIG` seed), its signed prekey (`spk_id`,
/// `SPK` scalar) and the user key's seed.
enum RecordVectors {
    /// The keys every case is built from.
    struct Keys {
        let userID: WireUUID, deviceID: WireUUID, otherUserID: WireUUID, otherDeviceID: WireUUID
        let identity: IdentityKeyPair
        let signedPrekey: SignedPrekey
        let userKey: Ed25519.PrivateKey

        init(random: RecordingRandom) throws {
            userID = try random.uuid()
            deviceID = try random.uuid()
            otherUserID = try random.uuid()
            otherDeviceID = try random.uuid()
            identity = IdentityKeyPair(using: random)
            signedPrekey = try SignedPrekey.generate(identity: identity, retainedIDs: [], createdAt: 0, using: random)
            userKey = Ed25519.PrivateKey(using: random)
            _ = random.take()
        }

        var blob: IdentityBlob { identity.publicIdentity }

        /// `SIG`'s signature of `record` under `label`.
        func sign(_ record: [UInt8], label: [UInt8] = SignedPrekeyRecord.signatureLabel) -> [UInt8] {
            identity.signingKey.signature(for: label + record)
        }
    }

    /// What a certificate of a case is made of (`nil` in a case: the zero certificate).
    struct Issue {
        let certifiedUser: WireUUID, certifiedDevice: WireUUID, epoch: UInt32, notAfter: UInt32
    }

    static let notAfter: UInt32 = 1_766_000_000

    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "records_test.json", algorithm: "E2EE-SIGNED-PREKEY-RECORD", header: [
            "Signed prekey records (PROTOCOL.md text 1.3, §1.4 and §10.3): 0x02 || spk_id || SPK_pub || cert, signed by SIG under e2ee-spk-v2.",
            "Valid tests recompute the certificate, record and signature and say whether cert_sig verifies for (userId, deviceId, identityBlob);",
            "invalid tests alter the published record or its signature, and a correct reader refuses the bundle.",
        ])
        let keys = try Keys(random: RecordingRandom(seedLabel: "e2ee-vectors/records"))
        let certified = Issue(certifiedUser: keys.userID, certifiedDevice: keys.deviceID, epoch: 1, notAfter: notAfter)
        let valid: [(String, Issue?)] = [
            ("zero certificate: no certificate, uncertified", nil),
            ("certified at epoch 1", certified),
            ("certified at the highest epoch 4294967294, not_after 4294967295",
             Issue(certifiedUser: keys.userID, certifiedDevice: keys.deviceID, epoch: UInt32.max - 1, notAfter: UInt32.max)),
            ("a certificate made for another device of the user: cert_sig does not verify, uncertified",
             Issue(certifiedUser: keys.userID, certifiedDevice: keys.otherDeviceID, epoch: 1, notAfter: notAfter)),
            ("a certificate made for this device id under another user: cert_sig does not verify, uncertified",
             Issue(certifiedUser: keys.otherUserID, certifiedDevice: keys.deviceID, epoch: 1, notAfter: notAfter)),
        ]
        for (comment, issue) in valid {
            let fields = try validFields(keys, issue)
            file.add(VectorTest(groupType: "RecordTest", comment: comment, fields: fields))
        }
        for alteration in try alterations(keys, certified: certified) {
            file.note(alteration.flag, alteration.meaning)
            var fields = try validFields(keys, alteration.certified ? certified : nil)
            fields.set("certificate", "")
            fields.setHex("record", alteration.record)
            fields.setHex("recordSignature", alteration.signature)
            fields.set("certified", .bool(false))
            let failure = try refusal(alteration.failure, "record \(alteration.flag)") {
                _ = try bundle(keys, record: alteration.record, signature: alteration.signature)
            }
            file.add(VectorTest(groupType: "RecordTest", comment: alteration.meaning, flags: [alteration.flag], fields: fields, failure: failure))
        }
        return file
    }

    /// The fields of a valid case.
    static func validFields(_ keys: Keys, _ issue: Issue?) throws -> JSONObjectBuilder {
        let certificate = try issue.map {
            try DeviceCertificate.issue(by: keys.userKey, userID: $0.certifiedUser, deviceID: $0.certifiedDevice, identity: keys.blob,
                                        epoch: $0.epoch, notAfter: $0.notAfter)
        } ?? .zero
        let record = keys.signedPrekey.record(certificate: certificate)
        let signature = record.signature(by: keys.identity)
        let parsed = try bundle(keys, record: record.bytes, signature: signature)
        guard parsed.certificate == certificate else { throw GeneratorError("the record's certificate does not parse back") }
        let isCertified = parsed.verifiedCertificate(forUser: keys.userID) != nil
        guard isCertified == (issue.map { $0.certifiedUser == keys.userID && $0.certifiedDevice == keys.deviceID } ?? false) else {
            throw GeneratorError("certification is not what the case says")
        }
        var fields = JSONObjectBuilder()
        fields.set("userId", keys.userID.text)
        fields.set("deviceId", keys.deviceID.text)
        fields.setHex("identityPrivate", bytesOf(keys.identity.dhKey.rawRepresentation))
        fields.setHex("signingSeed", bytesOf(keys.identity.signingKey.seed))
        fields.set("signedPrekeyId", keys.signedPrekey.id)
        fields.setHex("signedPrekeyPrivate", bytesOf(keys.signedPrekey.keyPair.rawRepresentation))
        fields.setHex("userKeySeed", issue == nil ? [] : bytesOf(keys.userKey.seed))
        fields.set("certifiedUserId", issue?.certifiedUser.text ?? "")
        fields.set("certifiedDeviceId", issue?.certifiedDevice.text ?? "")
        fields.set("epoch", issue?.epoch ?? 0)
        fields.set("notAfter", issue?.notAfter ?? 0)
        fields.setHex("identityBlob", keys.blob.bytes)
        fields.setHex("certificate", certificate.bytes)
        fields.setHex("record", record.bytes)
        fields.setHex("recordSignature", signature)
        fields.set("certified", .bool(isCertified))
        return fields
    }

    /// The bundle a reader builds from the published values.
    static func bundle(_ keys: Keys, record: [UInt8], signature: [UInt8]) throws -> PrekeyBundle {
        try PrekeyBundle(deviceID: keys.deviceID.text, identityKey: keys.blob.base64, signedPreKey: Base64.encode(record),
                         signedPreKeySignature: Base64.encode(signature), oneTimePreKey: nil)
    }

    struct Alteration {
        let flag: String, meaning: String, failure: String
        /// Whether the case is based on the certified record (else the zero one).
        let certified: Bool
        let record: [UInt8], signature: [UInt8]
    }

    static func alterations(_ keys: Keys, certified: Issue) throws -> [Alteration] {
        let zero = keys.signedPrekey.published.bytes
        let issued = try DeviceCertificate.issue(by: keys.userKey, userID: certified.certifiedUser, deviceID: certified.certifiedDevice,
                                                 identity: keys.blob, epoch: certified.epoch, notAfter: certified.notAfter)
        let good = keys.signedPrekey.record(certificate: issued).bytes
        let head = Array(good[0..<37])
        /// A certificate whose user key and epoch are given, signed by the user key over them.
        func certificate(userKey: [UInt8], epoch: UInt32) throws -> [UInt8] {
            let key = try Ed25519.PublicKey(rawRepresentation: userKey)
            let message = DeviceCertificate.signedMessage(userID: keys.userID, deviceID: keys.deviceID, identity: keys.blob, userKey: key,
                                                          epoch: epoch, notAfter: notAfter)
            return userKey + WireWriter.bytes(epoch) + WireWriter.bytes(notAfter) + keys.userKey.signature(for: message)
        }
        func resigned(_ flag: String, _ meaning: String, _ failure: String, certified: Bool = true, _ record: [UInt8]) -> Alteration {
            Alteration(flag: flag, meaning: meaning, failure: failure, certified: certified, record: record, signature: keys.sign(record))
        }
        let version1 = [UInt8(0x01)] + Array(zero[1..<37])
        let userKey = keys.userKey.publicKey.rawRepresentation
        return [
            Alteration(flag: "Version1Record", meaning: "text 1.2's 37-byte form 0x01 || spk_id || SPK_pub, signed under e2ee-spk-v1",
                       failure: "unsupportedVersion", certified: false, record: version1, signature: keys.sign(version1, label: Array("e2ee-spk-v1".utf8))),
            resigned("UnknownRecordVersion", "version byte 0x03, 141 bytes, re-signed", "unsupportedVersion", certified: false, [0x03] + zero[1...]),
            resigned("TruncatedRecord", "a record of 140 bytes, re-signed", "truncated", certified: false, Array(zero.dropLast())),
            resigned("TrailingRecord", "a record of 142 bytes, re-signed", "trailingBytes", certified: false, zero + [0]),
            Alteration(flag: "ModifiedRecordSignature", meaning: "one bit of the record's signature flipped", failure: "badSignature",
                       certified: true, record: good, signature: keys.sign(good).flipping(40)),
            Alteration(flag: "ModifiedCertificate", meaning: "one bit of not_after flipped after SIG signed the record", failure: "badSignature",
                       certified: true, record: good.flipping(76), signature: keys.sign(good)),
            Alteration(flag: "Version1SignatureLabel", meaning: "the record signed under text 1.2's label e2ee-spk-v1", failure: "badSignature",
                       certified: false, record: zero, signature: keys.sign(zero, label: Array("e2ee-spk-v1".utf8))),
            resigned("SmallOrderUserKey", "UMK_pub is the neutral point (small order), record re-signed", "invalidKey",
                     head + (try certificate(userKey: X3DHVectors.ed25519Neutral, epoch: 1))),
            resigned("TorsionUserKey", "UMK_pub is B + a point of order 8 (a valid point outside the prime-order subgroup), re-signed",
                     "invalidKey", head + (try certificate(userKey: torsionPoint, epoch: 1))),
            resigned("ZeroUserKey", "UMK_pub all zero while the rest of the certificate is not (not a zero certificate), re-signed",
                     "invalidKey", head + [UInt8](repeating: 0, count: 32) + issued.bytes[32...]),
            resigned("ZeroEpoch", "epoch 0 (signed by the user key), re-signed", "malformed", head + (try certificate(userKey: userKey, epoch: 0))),
            resigned("MaxEpoch", "epoch 4294967295 (signed by the user key), re-signed", "malformed",
                     head + (try certificate(userKey: userKey, epoch: UInt32.max))),
        ]
    }

    /// B + T, T of order 8: a canonical point, not of small order, with a torsion component.
    static let torsionPoint: [UInt8] = [
        0xda, 0x99, 0xe2, 0x8b, 0xa5, 0x29, 0xcd, 0xde, 0x35, 0xa2, 0x5f, 0xba, 0x90, 0x59, 0xe7, 0x8e,
        0xca, 0xee, 0x23, 0x9f, 0x99, 0x75, 0x5b, 0x9b, 0x1a, 0xa4, 0xf6, 0x5d, 0xf0, 0x08, 0x03, 0xe2,
    ]
}
