@testable import E2EECrypto
import E2EETestSupport
import Foundation
import Testing

@Suite("Sessions: device keys, published forms and bundles")
struct DeviceKeysTests {
    static let lowOrderX25519 = [UInt8](repeating: 0, count: 31) + [0]
    /// p = 2^255 − 19 itself: bit 255 clear but not canonical.
    static let nonCanonicalX25519 = [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f]
    /// The Ed25519 identity point (y = 1): decodes, but has small order.
    static let smallOrderEd25519 = [1] + [UInt8](repeating: 0, count: 31)

    let device: SessionTestDevice

    init() throws {
        device = try SessionTestDevice(seed: 7)
    }

    func json(identity: String? = nil, spk: String? = nil, signature: String? = nil,
              opk: String?? = .none, deviceID: String? = nil) throws -> PrekeyBundleJSON {
        let spkKey = try #require(device.signedPrekeys.first)
        return PrekeyBundleJSON(
            deviceID: deviceID ?? device.deviceID.text, identityKey: identity ?? device.blob.base64,
            signedPreKey: spk ?? spkKey.published.base64, signedPreKeySignature: signature ?? spkKey.signatureBase64,
            oneTimePreKey: opk ?? device.oneTimePrekeys[0].published.base64
        )
    }

    @Test("identity blob: 65 bytes, version 1, round-trips through bytes and base64")
    func identityBlob() throws {
        let blob = device.blob
        #expect(blob.bytes.count == 65)
        #expect(blob.bytes[0] == 0x01)
        #expect(try IdentityBlob(bytes: blob.bytes) == blob)
        #expect(try IdentityBlob(base64: blob.base64) == blob)
    }

    @Test("identity blob refusals: length, version, X25519 and Ed25519 key checks")
    func identityBlobRefusals() throws {
        let good = device.blob.bytes
        #expect(throws: ProtocolError.truncated(.identityBlob, expected: 65, actual: 64)) { try IdentityBlob(bytes: Array(good.dropLast())) }
        #expect(throws: ProtocolError.trailingBytes(.identityBlob, count: 1)) { try IdentityBlob(bytes: good + [0]) }
        #expect(throws: ProtocolError.unsupportedVersion(.identityBlob, value: 2)) { try IdentityBlob(bytes: [2] + good.dropFirst()) }
        let lowOrder = [1] + Self.lowOrderX25519 + good[33...]
        #expect(throws: ProtocolError.invalidKey(.identityBlob)) { try IdentityBlob(bytes: lowOrder) }
        let nonCanonical = [1] + Self.nonCanonicalX25519 + good[33...]
        #expect(throws: ProtocolError.invalidKey(.identityBlob)) { try IdentityBlob(bytes: nonCanonical) }
        let badSigning = Array(good[0..<33]) + Self.smallOrderEd25519
        #expect(throws: ProtocolError.invalidKey(.identityBlob)) { try IdentityBlob(bytes: badSigning) }
    }

    @Test("signed prekey: the 141-byte record v2 with the zero certificate, signed under e2ee-spk-v2")
    func signedPrekeyForm() throws {
        let spk = try #require(device.signedPrekeys.first)
        let published = spk.published
        #expect(published.bytes.count == 141)
        #expect(published.base64.count == 188)
        #expect(published.bytes[0] == 0x02)
        #expect(Array(published.bytes[1..<5]) == [UInt8(spk.id >> 24), UInt8(spk.id >> 16 & 0xff), UInt8(spk.id >> 8 & 0xff), UInt8(spk.id & 0xff)])
        #expect(Array(published.bytes[5..<37]) == spk.keyPair.publicKey.rawRepresentation)
        #expect(Array(published.bytes[37...]) == [UInt8](repeating: 0, count: 104))
        #expect(published.certificate.isZero)
        #expect(spk.id != 0)
        try device.blob.signingKey.verify(spk.signature, for: Array("e2ee-spk-v2".utf8) + published.bytes)
        #expect(!device.blob.signingKey.isValidSignature(spk.signature, for: Array("e2ee-spk-v1".utf8) + published.bytes))
        #expect(published.signature(by: device.identity) == spk.signature)
        #expect(try SignedPrekeyRecord(base64: published.base64) == published)
        #expect(throws: ProtocolError.malformed(.signedPrekey, reason: "spk_id 0")) {
            try SignedPrekey(id: 0, identity: device.identity, createdAt: 0)
        }
    }

    @Test("a new signed prekey id avoids every retained id")
    func signedPrekeyIDs() throws {
        // DeterministicRandom gives the same first id each time: retaining it forces another.
        let first = try SignedPrekey.generate(identity: device.identity, retainedIDs: [], createdAt: 0, using: DeterministicRandom(seed: [1]))
        let second = try SignedPrekey.generate(identity: device.identity, retainedIDs: [first.id], createdAt: 0, using: DeterministicRandom(seed: [1]))
        #expect(second.id != first.id)
        #expect(second.id != 0)
    }

    @Test("one-time prekeys: ids from the counter, never wrapping; grace window")
    func oneTimePrekeys() throws {
        let keys = try OneTimePrekey.generate(count: 3, nextID: 41)
        #expect(keys.map(\.id) == [41, 42, 43])
        #expect(try PublishedOneTimePrekey(bytes: keys[0].published.bytes) == keys[0].published)
        #expect(throws: ProtocolError.self) { try OneTimePrekey.generate(count: 2, nextID: UInt32.max) }
        #expect(throws: ProtocolError.self) { try OneTimePrekey.generate(count: 1, nextID: 0) }
        #expect(try OneTimePrekey.generate(count: 1, nextID: UInt32.max).map(\.id) == [UInt32.max])
        let consumed = keys[0].consumed(at: 1_000)
        #expect(consumed.isUsable(at: 1_000 + ProtocolLimits.oneTimePrekeyGraceSeconds - 1))
        #expect(!consumed.isUsable(at: 1_000 + ProtocolLimits.oneTimePrekeyGraceSeconds))
        #expect(consumed.consumed(at: 5_000).consumedAt == 1_000)
    }

    @Test("a server bundle parses into a verified PrekeyBundle, from the API's JSON")
    func bundleFromJSON() throws {
        let spk = try #require(device.signedPrekeys.first)
        let text = """
        [{"device_id":"\(device.deviceID.text)","identity_key":"\(device.blob.base64)",
          "signed_pre_key":"\(spk.published.base64)","signed_pre_key_signature":"\(spk.signatureBase64)",
          "one_time_pre_key":null,"one_time_pre_key_count":0}]
        """
        let decoded = try JSONDecoder().decode([PrekeyBundleJSON].self, from: Data(text.utf8))
        let bundle = try PrekeyBundle(try #require(decoded.first))
        #expect(bundle.deviceID == device.deviceID)
        #expect(bundle.identity == device.blob)
        #expect(bundle.signedPrekey == spk.published)
        #expect(bundle.oneTimePrekey == nil)
        let withOPK = try PrekeyBundle(json())
        #expect(withOPK.oneTimePrekey == device.oneTimePrekeys[0].published)
    }

    @Test("bundle refusal: bad signature (forged, swapped key, other prekey)")
    func bundleBadSignature() throws {
        let spk = try #require(device.signedPrekeys.first)
        var forged = spk.signature
        forged[3] ^= 0x40
        #expect(throws: ProtocolError.badSignature) { try PrekeyBundle(json(signature: Base64.encode(forged))) }
        let other = try SessionTestDevice(seed: 8)
        #expect(throws: ProtocolError.badSignature) { try PrekeyBundle(json(identity: other.blob.base64)) }
        let otherSPK = try #require(other.signedPrekeys.first)
        #expect(throws: ProtocolError.badSignature) { try PrekeyBundle(json(spk: otherSPK.published.base64)) }
        #expect(throws: ProtocolError.malformed(.bundle, reason: "signature is 63 bytes, expected 64")) {
            try PrekeyBundle(json(signature: Base64.encode(Array(spk.signature.dropLast()))))
        }
    }

    @Test("bundle refusal: wrong length or version of each key, text 1.2's 37-byte signed prekey among them")
    func bundleLengthsAndVersions() throws {
        let spk = try #require(device.signedPrekeys.first)
        let spkBytes = spk.published.bytes
        let opkBytes = device.oneTimePrekeys[0].published.bytes
        #expect(throws: ProtocolError.truncated(.signedPrekey, expected: 141, actual: 140)) {
            try PrekeyBundle(json(spk: Base64.encode(Array(spkBytes.dropLast()))))
        }
        #expect(throws: ProtocolError.trailingBytes(.signedPrekey, count: 1)) { try PrekeyBundle(json(spk: Base64.encode(spkBytes + [0]))) }
        #expect(throws: ProtocolError.unsupportedVersion(.signedPrekey, value: 0)) {
            try PrekeyBundle(json(spk: Base64.encode([0] + spkBytes.dropFirst())))
        }
        // Text 1.2's form, signed under its own label: refused by its version byte.
        let version1 = [UInt8(0x01)] + spkBytes[1..<37]
        let version1Signature = device.identity.signingKey.signature(for: Array("e2ee-spk-v1".utf8) + version1)
        #expect(throws: ProtocolError.unsupportedVersion(.signedPrekey, value: 1)) {
            try PrekeyBundle(json(spk: Base64.encode(version1), signature: Base64.encode(version1Signature)))
        }
        #expect(throws: ProtocolError.truncated(.oneTimePrekey, expected: 37, actual: 36)) {
            try PrekeyBundle(json(opk: Base64.encode(Array(opkBytes.dropLast()))))
        }
        #expect(throws: ProtocolError.unsupportedVersion(.oneTimePrekey, value: 2)) {
            try PrekeyBundle(json(opk: Base64.encode([2] + opkBytes.dropFirst())))
        }
        #expect(throws: ProtocolError.unsupportedVersion(.identityBlob, value: 0)) {
            try PrekeyBundle(json(identity: Base64.encode([0] + device.blob.bytes.dropFirst())))
        }
    }

    @Test("bundle refusal: id 0")
    func bundleZeroIDs() throws {
        var opkBytes = device.oneTimePrekeys[0].published.bytes
        opkBytes.replaceSubrange(1..<5, with: [0, 0, 0, 0])
        #expect(throws: ProtocolError.malformed(.oneTimePrekey, reason: "opk_id 0")) { try PrekeyBundle(json(opk: Base64.encode(opkBytes))) }
        // A zero spk_id is refused when parsed, before the signature is looked at.
        var spkBytes = try #require(device.signedPrekeys.first).published.bytes
        spkBytes.replaceSubrange(1..<5, with: [0, 0, 0, 0])
        #expect(throws: ProtocolError.malformed(.signedPrekey, reason: "spk_id 0")) { try PrekeyBundle(json(spk: Base64.encode(spkBytes))) }
    }

    @Test("bundle refusal: non-canonical or low-order keys")
    func bundleBadKeys() throws {
        let spkBytes = try #require(device.signedPrekeys.first).published.bytes
        for bad in [Self.lowOrderX25519, Self.nonCanonicalX25519] {
            #expect(throws: ProtocolError.invalidKey(.signedPrekey)) {
                try PrekeyBundle(json(spk: Base64.encode(Array(spkBytes[0..<5]) + bad + spkBytes[37...])))
            }
            #expect(throws: ProtocolError.invalidKey(.oneTimePrekey)) {
                try PrekeyBundle(json(opk: Base64.encode([1, 0, 0, 0, 9] + bad)))
            }
            #expect(throws: ProtocolError.invalidKey(.identityBlob)) {
                try PrekeyBundle(json(identity: Base64.encode([1] + bad + device.blob.signingKey.rawRepresentation)))
            }
        }
    }

    @Test("bundle refusal: non-canonical base64, over-long strings, bad device id")
    func bundleStrings() throws {
        let blob = device.blob.base64
        #expect(throws: ProtocolError.self) { try PrekeyBundle(json(identity: " " + blob.dropFirst())) }
        #expect(throws: ProtocolError.self) { try PrekeyBundle(json(identity: String(blob.dropLast()))) }
        let urlSafe = blob.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        if urlSafe != blob { #expect(throws: ProtocolError.self) { try PrekeyBundle(json(identity: urlSafe)) } }
        #expect(throws: ProtocolError.limitExceeded(.identityBlob, limit: 255, actual: 256)) {
            try PrekeyBundle(json(identity: String(repeating: "A", count: 256)))
        }
        #expect(throws: ProtocolError.self) { try PrekeyBundle(json(deviceID: device.deviceID.text.uppercased())) }
    }

    @Test("stored forms of the identity, signed and one-time prekeys round-trip; bad forms are typed errors")
    func storedKeyForms() throws {
        let identityBytes = device.identity.serialized()
        #expect(identityBytes.count == 65)
        let identity = try IdentityKeyPair(serialized: identityBytes)
        #expect(identity.publicIdentity == device.blob)
        #expect(identity.serialized() == identityBytes)

        let spk = try #require(device.signedPrekeys.first)
        let spkBytes = spk.serialized()
        let restored = try SignedPrekey(serialized: spkBytes)
        #expect(restored.serialized() == spkBytes)
        #expect(restored.published == spk.published && restored.createdAt == spk.createdAt && restored.signature == spk.signature)

        let opk = device.oneTimePrekeys[1].consumed(at: 12_345)
        let opkRestored = try OneTimePrekey(serialized: opk.serialized())
        #expect(opkRestored.consumedAt == 12_345 && opkRestored.published == opk.published)
        #expect(try OneTimePrekey(serialized: device.oneTimePrekeys[0].serialized()).consumedAt == nil)

        var raw = identityBytes.unprotectedCopy()
        #expect(throws: ProtocolError.trailingBytes(.keyState, count: 1)) { try IdentityKeyPair(serialized: raw + [0]) }
        #expect(throws: ProtocolError.truncated(.keyState, expected: 33, actual: 32)) { try IdentityKeyPair(serialized: Array(raw[0..<32])) }
        raw[0] = 9
        #expect(throws: ProtocolError.unsupportedVersion(.keyState, value: 9)) { try IdentityKeyPair(serialized: raw) }
        var opkRaw = opk.serialized().unprotectedCopy()
        opkRaw[37] = 2
        #expect(throws: ProtocolError.malformed(.keyState, reason: "flag byte 2")) { try OneTimePrekey(serialized: opkRaw) }
    }
}

@Suite("Sessions: key upload body")
struct KeyUploadTests {
    @Test("the upload body carries the published forms under the API's field names, and parses back as a bundle")
    func uploadBody() throws {
        let device = try SessionTestDevice(seed: 9)
        let spk = try #require(device.signedPrekeys.first)
        let upload = KeyUploadJSON(deviceID: device.deviceID, identity: device.identity, signedPrekey: spk, oneTimePrekeys: device.oneTimePrekeys)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(upload)) as? [String: Any])
        #expect(Set(object.keys) == ["device_id", "identity_key", "signed_pre_key", "signed_pre_key_signature", "one_time_pre_keys"])
        #expect(upload.oneTimePreKeys.count == device.oneTimePrekeys.count)
        let bundle = try PrekeyBundle(deviceID: upload.deviceID, identityKey: upload.identityKey, signedPreKey: upload.signedPreKey,
                                      signedPreKeySignature: upload.signedPreKeySignature, oneTimePreKey: upload.oneTimePreKeys[2])
        #expect(bundle.oneTimePrekey?.id == 3 && bundle.identity == device.blob)
        #expect(bundle.certificate.isZero)
    }

    @Test("an upload with a certificate carries it in the record, signed by the device's SIG")
    func uploadWithCertificate() throws {
        let device = try SessionTestDevice(seed: 9)
        let spk = try #require(device.signedPrekeys.first)
        let user = try WireUUID(text: "0a0b0c0d-0000-4000-8000-000000000001")
        let certificate = try DeviceCertificate.issue(by: Ed25519.PrivateKey(), userID: user, deviceID: device.deviceID, identity: device.blob,
                                                      epoch: 3, notAfter: 2_000_000_000)
        let upload = KeyUploadJSON(deviceID: device.deviceID, identity: device.identity, signedPrekey: spk, certificate: certificate,
                                   oneTimePrekeys: [])
        let bundle = try PrekeyBundle(deviceID: upload.deviceID, identityKey: upload.identityKey, signedPreKey: upload.signedPreKey,
                                      signedPreKeySignature: upload.signedPreKeySignature, oneTimePreKey: nil)
        #expect(bundle.signedPrekey == spk.record(certificate: certificate))
        #expect(bundle.verifiedCertificate(forUser: user) == certificate)
    }
}
