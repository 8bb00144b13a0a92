import E2EECrypto

/// `safety_numbers_test.json`: users with one and three devices (group `SafetyNumberTest`, §7.4;
/// seed `"e2ee-vectors/safety-numbers"`: per user a UUID (16 bytes) then each device's
/// identity), then halves under user keys (group `SafetyNumberUserKeyTest`, §10.18 B.5; see
/// ``SafetyNumberUserKeyVectors``).
enum SafetyNumberVectors {
    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "safety_numbers_test.json", algorithm: "E2EE-SAFETY-NUMBER", header: [
            "Safety numbers (PROTOCOL.md §7): 30 digits per user from 5,200 SHA-512 rounds over the sorted identity blobs;",
            "the number is the smaller fingerprint first, 12 groups of 5. blobsA/blobsB are in listing order (not sorted).",
            "SafetyNumberUserKeyTest (text 1.3, §10.18 B.5): a user with a user key K has SHA-512(0x00 0x01 || K || uid), then 5,199 times",
            "SHA-512(h || K), no device entering; scannableForm is userA's §7.6 code. A key that is not 32 bytes is refused.",
        ])
        let random = RecordingRandom(seedLabel: "e2ee-vectors/safety-numbers")
        func user(_ devices: Int) throws -> (String, [[UInt8]]) {
            let id = try random.uuid().text
            let blobs = (0..<devices).map { _ in IdentityKeyPair(using: random).publicIdentity.bytes }
            _ = random.take()
            return (id, blobs)
        }
        let cases = [(1, 1, "one device each"), (3, 1, "three devices (listed unsorted) and one"), (3, 3, "three devices each")]
        for (countA, countB, comment) in cases {
            let (userA, drawnA) = try user(countA)
            // Listed in descending byte order, so the implementation must sort.
            let blobsA = drawnA.sorted { $1.lexicographicallyPrecedes($0) }
            let (userB, blobsB) = try user(countB)
            let fingerprintA = try SafetyNumber.fingerprint(userID: userA, identityBlobs: blobsA)
            let fingerprintB = try SafetyNumber.fingerprint(userID: userB, identityBlobs: blobsB)
            let number = try SafetyNumber.compute(userA: userA, blobsA: blobsA, userB: userB, blobsB: blobsB)
            guard try number == SafetyNumber.combine(fingerprintA, fingerprintB) else { throw GeneratorError("compute and combine disagree") }
            var fields = JSONObjectBuilder()
            fields.set("userA", userA)
            fields.set("blobsA", .array(blobsA.map { .string(hexString($0)) }))
            fields.set("userB", userB)
            fields.set("blobsB", .array(blobsB.map { .string(hexString($0)) }))
            fields.set("fingerprintA", fingerprintA)
            fields.set("fingerprintB", fingerprintB)
            fields.set("safetyNumber", number)
            file.add(VectorTest(groupType: "SafetyNumberTest", comment: comment, fields: fields))
        }
        try SafetyNumberUserKeyVectors.add(to: &file)
        return file
    }
}
