import E2EECrypto

/// The `SafetyNumberUserKeyTest` group of `safety_numbers_test.json` (docs/spec/protocol.md
/// §10.18, B.5): a user key against devices on either side, keys on both sides, upper-case
/// user ids, one key for two users, and keys of 31 and 33 bytes (refused as `malformed`).
///
/// Seed `"e2ee-vectors/safety-numbers/user-key"` (its own, so the device cases above never
/// shift): four user ids (16 bytes each), three user keys (an Ed25519 seed each), then the
/// identities of the devices: one of the second user, two of the third.
enum SafetyNumberUserKeyVectors {
    /// One user's half as the vector writes it: a user key or identity blobs.
    struct Half {
        let userID: String
        let userKey: [UInt8]
        let blobs: [[UInt8]]

        var api: SafetyNumber.UserHalf { userKey.isEmpty ? .devices(blobs) : .userKey(userKey) }

        /// The same half for the id in upper case.
        var upperCased: Half { Half(userID: userID.uppercased(), userKey: userKey, blobs: blobs) }
    }

    static func add(to file: inout VectorFileBuilder) throws {
        let random = RecordingRandom(seedLabel: "e2ee-vectors/safety-numbers/user-key")
        let users = try (0..<4).map { _ in try random.uuid().text }
        let keys = (0..<3).map { _ in Ed25519.PrivateKey(using: random).publicKey.rawRepresentation }
        _ = random.take()
        func devices(_ count: Int) -> [[UInt8]] {
            let blobs = (0..<count).map { _ in IdentityKeyPair(using: random).publicIdentity.bytes }
            _ = random.take()
            // Listed in descending byte order, so the implementation must sort.
            return blobs.sorted { $1.lexicographicallyPrecedes($0) }
        }
        let keyed = Half(userID: users[0], userKey: keys[0], blobs: [])
        let oneDevice = Half(userID: users[1], userKey: [], blobs: devices(1))
        let twoDevices = Half(userID: users[2], userKey: [], blobs: devices(2))
        let valid: [(String, Half, Half)] = [
            ("a user key and one device", keyed, oneDevice),
            ("two devices (listed unsorted) and a user key", twoDevices, Half(userID: users[3], userKey: keys[1], blobs: [])),
            ("user keys on both sides", keyed, Half(userID: users[3], userKey: keys[2], blobs: [])),
            ("the first case with upper-case user ids (lower-cased for hashing): the same outputs", keyed.upperCased, oneDevice.upperCased),
            ("one user key for two users: the user id tells them apart",
             Half(userID: users[1], userKey: keys[0], blobs: []), Half(userID: users[2], userKey: keys[0], blobs: [])),
        ]
        for (comment, a, b) in valid {
            file.add(VectorTest(groupType: "SafetyNumberUserKeyTest", comment: comment, fields: try validFields(a, b)))
        }
        let refused: [(flag: String, meaning: String, comment: String, a: Half, b: Half)] = [
            ("ShortUserKey", "userKeyA is 31 bytes", "a user key of 31 bytes (the first case's key without its last byte)",
             Half(userID: users[0], userKey: Array(keys[0].prefix(31)), blobs: []), oneDevice),
            ("LongUserKey", "userKeyB is 33 bytes", "a user key of 33 bytes (the third case's second key and a zero byte)",
             keyed, Half(userID: users[3], userKey: keys[2] + [0x00], blobs: [])),
        ]
        for (flag, meaning, comment, a, b) in refused {
            file.note(flag, meaning)
            let failure = try refusal("malformed", "safety number \(flag)") {
                _ = try SafetyNumber(localUserID: a.userID, local: a.api, remoteUserID: b.userID, remote: b.api)
            }
            _ = try refusal(failure, "safety number \(flag), the other way round") {
                _ = try SafetyNumber(localUserID: b.userID, local: b.api, remoteUserID: a.userID, remote: a.api)
            }
            var fields = inputs(a, b)
            for output in ["fingerprintA", "fingerprintB", "safetyNumber", "scannableForm"] { fields.set(output, "") }
            file.add(VectorTest(groupType: "SafetyNumberUserKeyTest", comment: comment, flags: [flag], fields: fields, failure: failure))
        }
    }

    /// The input fields of a case, in README order.
    static func inputs(_ a: Half, _ b: Half) -> JSONObjectBuilder {
        var fields = JSONObjectBuilder()
        for (side, half) in [("A", a), ("B", b)] {
            fields.set("user" + side, half.userID)
            fields.setHex("userKey" + side, half.userKey)
            fields.set("blobs" + side, .array(half.blobs.map { .string(hexString($0)) }))
        }
        return fields
    }

    /// A valid case: both fingerprints, the number and `a`'s scannable form, checked for
    /// agreement between the static functions and both sides' values.
    static func validFields(_ a: Half, _ b: Half) throws -> JSONObjectBuilder {
        func fingerprint(_ half: Half) throws -> String {
            half.userKey.isEmpty ? try SafetyNumber.fingerprint(userID: half.userID, identityBlobs: half.blobs)
                : try SafetyNumber.fingerprint(userID: half.userID, userKey: half.userKey)
        }
        let fingerprintA = try fingerprint(a), fingerprintB = try fingerprint(b)
        let aView = try SafetyNumber(localUserID: a.userID, local: a.api, remoteUserID: b.userID, remote: b.api)
        let bView = try SafetyNumber(localUserID: b.userID, local: b.api, remoteUserID: a.userID, remote: a.api)
        let number = try SafetyNumber.combine(fingerprintA, fingerprintB)
        guard aView.localDigits == fingerprintA, aView.remoteDigits == fingerprintB, aView.displayText == number, bView.displayText == number,
              bView.compare(scanned: aView.scannableForm) == .match, aView.compare(scanned: bView.scannableForm) == .match
        else { throw GeneratorError("the safety number's functions and values disagree") }
        var fields = inputs(a, b)
        fields.set("fingerprintA", fingerprintA)
        fields.set("fingerprintB", fingerprintB)
        fields.set("safetyNumber", number)
        fields.setHex("scannableForm", aView.scannableForm)
        return fields
    }
}
