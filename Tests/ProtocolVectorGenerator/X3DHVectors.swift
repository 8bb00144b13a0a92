import E2EECrypto

/// `x3dh_test.json`: X3DH with and without a one-time prekey, and bundles a correct initiator
/// refuses. Seeds: `"e2ee-vectors/x3dh/with-opk"`, `"e2ee-vectors/x3dh/without-opk"`.
enum X3DHVectors {
    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "x3dh_test.json", algorithm: "E2EE-X3DH", header: [
            "X3DH (PROTOCOL.md §1-§2): Alice's side from fixed keys; SK and AD are outputs. The signed prekey is text 1.3's record (zero certificate).",
            "Invalid tests alter one published bundle value; a correct initiator refuses the bundle.",
        ])
        var honest: (setup: X3DHSetup, fields: JSONObjectBuilder)?
        for (label, opkID, comment) in [("with-opk", UInt32(7), "with one-time prekey"), ("without-opk", UInt32(0), "without one-time prekey")] {
            let random = RecordingRandom(seedLabel: "e2ee-vectors/x3dh/" + label)
            let setup = try X3DHSetup(random: random, opkID: opkID)
            let (session, ephemeral, ratchet) = try setup.initiate(random: random)
            var fields = JSONObjectBuilder()
            setup.inputFields(into: &fields)
            fields.setHex("ephemeralPrivate", ephemeral)
            fields.setHex("initiatorIdentityBlob", setup.alice.publicIdentity.bytes)
            fields.setHex("responderIdentityBlob", setup.bob.publicIdentity.bytes)
            fields.setHex("signedPrekeyPublic", setup.spkPublic)
            fields.setHex("signedPrekeySignature", setup.signedPrekey.signature)
            fields.setHex("oneTimePrekeyPublic", setup.opkPublic)
            fields.setHex("ephemeralPublic", session.state.baseKey.rawRepresentation)
            fields.setHex("sharedSecret", try setup.sharedSecret(ephemeral: ephemeral, ratchet: ratchet, state: session.state))
            fields.setHex("associatedData", session.state.associatedData)
            file.add(VectorTest(groupType: "X3dhTest", comment: comment, fields: fields))
            if honest == nil { honest = (setup, fields) }
        }
        guard let (setup, fields) = honest else { throw GeneratorError("no honest X3DH case") }
        for alteration in try alterations(setup) {
            file.note(alteration.flag, alteration.meaning)
            var altered = fields
            for (key, value) in alteration.changes { altered.setHex(key, value) }
            altered.set("sharedSecret", "")
            altered.set("associatedData", "")
            func published(_ key: String) throws -> [UInt8] {
                guard case .string(let text)? = altered[key] else { throw GeneratorError("missing \(key)") }
                return try hexBytes(text)
            }
            let failure = try refusal(alteration.failure, "X3DH \(alteration.flag)") {
                let bundle = try X3DHSetup.bundle(
                    identity: published("responderIdentityBlob"), signedPrekey: published("signedPrekeyPublic"),
                    signature: published("signedPrekeySignature"), oneTimePrekey: published("oneTimePrekeyPublic"))
                _ = try X3DH.initiate(localIdentity: setup.alice, bundle: bundle, pinnedIdentity: nil, using: DeterministicRandom(seed: [0]))
            }
            file.add(VectorTest(groupType: "X3dhTest", comment: alteration.meaning, flags: [alteration.flag], fields: altered, failure: failure))
        }
        return file
    }

    struct Alteration {
        let flag: String
        let meaning: String
        let failure: String
        let changes: [(String, [UInt8])]
    }

    static func alterations(_ setup: X3DHSetup) throws -> [Alteration] {
        let spk = setup.spkPublic, opk = setup.opkPublic, blob = setup.bob.publicIdentity.bytes
        let signature = setup.signedPrekey.signature
        func resigned(_ form: [UInt8]) -> [(String, [UInt8])] {
            [("signedPrekeyPublic", form),
             ("signedPrekeySignature", setup.bob.signingKey.signature(for: SignedPrekeyRecord.signatureLabel + form))]
        }
        // S + L: the verification equation still holds, but S < L fails.
        let sPlusL = littleEndianAdd(Array(signature[32..<64]), groupOrderL)
        return [
            Alteration(flag: "ModifiedSpkSignature", meaning: "one bit of signedPrekeySignature flipped", failure: "badSignature",
                       changes: [("signedPrekeySignature", signature.flipping(40))]),
            Alteration(flag: "ModifiedSignedPrekey", meaning: "one bit of the SPK key flipped, signature not redone", failure: "badSignature",
                       changes: [("signedPrekeyPublic", spk.flipping(10))]),
            Alteration(flag: "NonCanonicalSpkSignature", meaning: "S replaced by S + L (the equation still holds; S < L fails)",
                       failure: "badSignature", changes: [("signedPrekeySignature", Array(signature[0..<32]) + sPlusL)]),
            Alteration(flag: "ZeroSignedPrekeyId", meaning: "spk_id 0, re-signed", failure: "malformed",
                       changes: resigned([SignedPrekeyRecord.version, 0, 0, 0, 0] + spk[5...])),
            Alteration(flag: "NonCanonicalSignedPrekey", meaning: "SPK key p + 5 (non-canonical), re-signed", failure: "invalidKey",
                       changes: resigned(Array(spk[0..<5]) + fieldPrimePlus5 + spk[37...])),
            Alteration(flag: "HighBitSignedPrekey", meaning: "SPK key with bit 255 set, re-signed", failure: "invalidKey",
                       changes: resigned(spk.settingHighBit())),
            Alteration(flag: "LowOrderSignedPrekey", meaning: "SPK key 1 (low order), re-signed", failure: "invalidKey",
                       changes: resigned(Array(spk[0..<5]) + [1] + [UInt8](repeating: 0, count: 31) + spk[37...])),
            Alteration(flag: "TrailingSignedPrekey", meaning: "signed prekey record of 142 bytes, re-signed", failure: "trailingBytes",
                       changes: resigned(spk + [0])),
            Alteration(flag: "LowOrderOneTimePrekey", meaning: "OPK key is a point of order 8", failure: "invalidKey",
                       changes: [("oneTimePrekeyPublic", Array(opk[0..<5]) + order8Point)]),
            Alteration(flag: "ZeroOneTimePrekeyId", meaning: "opk_id 0 in a published OPK", failure: "malformed",
                       changes: [("oneTimePrekeyPublic", [0x01, 0, 0, 0, 0] + opk[5...])]),
            Alteration(flag: "BadIdentityVersion", meaning: "identity blob version byte 0x02", failure: "unsupportedVersion",
                       changes: [("responderIdentityBlob", [0x02] + blob[1...])]),
            Alteration(flag: "LowOrderIdentityKey", meaning: "IK in the identity blob is 0", failure: "invalidKey",
                       changes: [("responderIdentityBlob", [blob[0]] + [UInt8](repeating: 0, count: 32) + blob[33...])]),
            Alteration(flag: "SmallOrderSigningKey", meaning: "SIG_pub in the identity blob is the neutral point", failure: "invalidKey",
                       changes: [("responderIdentityBlob", Array(blob[0..<33]) + ed25519Neutral)]),
            Alteration(flag: "TruncatedIdentityBlob", meaning: "identity blob of 64 bytes", failure: "truncated",
                       changes: [("responderIdentityBlob", Array(blob[0..<64]))]),
        ]
    }

    /// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    static let groupOrderL: [UInt8] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ]
    /// 2^255 − 19 + 5 = 2^255 − 14, little-endian (a non-canonical u-coordinate).
    static let fieldPrimePlus5: [UInt8] = [0xf2] + [UInt8](repeating: 0xff, count: 30) + [0x7f]
    /// The order-8 point 325606250916557431795983626356110631294008115727848805560023387167927233504.
    static let order8Point: [UInt8] = [
        0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
        0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00,
    ]
    /// The Ed25519 neutral element (y = 1): small order.
    static let ed25519Neutral: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)

    static func littleEndianAdd(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for index in 0..<32 {
            let sum = Int(a[index]) + Int(b[index]) + carry
            out[index] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        return out
    }
}

extension [UInt8] {
    /// Bit 255 of the key in a signed prekey record set (the key ends at byte 36).
    func settingHighBit() -> [UInt8] {
        var copy = self
        copy[36] |= 0x80
        return copy
    }
}

/// Decodes lower-case or upper-case hex.
func hexBytes(_ text: String) throws -> [UInt8] {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { throw GeneratorError("odd hex length") }
    func value(_ d: UInt8) throws -> UInt8 {
        switch d {
        case 0x30...0x39: d - 0x30
        case 0x61...0x66: d - 0x61 + 10
        case 0x41...0x46: d - 0x41 + 10
        default: throw GeneratorError("bad hex digit")
        }
    }
    return try stride(from: 0, to: digits.count, by: 2).map { try value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}
