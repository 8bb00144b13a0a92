import E2EECrypto

/// `E2EE-SAFETY-NUMBER` (docs/spec/protocol.md §7, §10.18). A `SafetyNumberTest` case (both
/// halves from devices): both fingerprints and the safety number, in both orders. A
/// `SafetyNumberUserKeyTest` case (a half under a user key, B.5): both fingerprints from the
/// static functions, then each side's ``SafetyNumber`` value — its digits, the display text,
/// userA's scannable form, and a match when each side scans the other's code; an invalid case
/// must be refused, in both orders, with the `failure` it names.
struct SafetyNumberRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-SAFETY-NUMBER"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        switch vector.group["type"]?.string {
        case "SafetyNumberTest": return try devicesAttempt(vector)
        case "SafetyNumberUserKeyTest": return try userKeyAttempt(vector)
        default: return .misrefused("unknown group type \(vector.group["type"]?.string ?? "(none)")")
        }
    }

    private func devicesAttempt(_ vector: VectorCase) throws -> Attempt {
        let blobsA = try blobs(vector, "blobsA"), blobsB = try blobs(vector, "blobsB")
        let userA = try vector.text("userA"), userB = try vector.text("userB")
        let expected = (try vector.text("fingerprintA"), try vector.text("fingerprintB"), try vector.text("safetyNumber"))
        return refusing {
            guard try SafetyNumber.fingerprint(userID: userA, identityBlobs: blobsA) == expected.0 else { return .mismatched("fingerprintA") }
            guard try SafetyNumber.fingerprint(userID: userB, identityBlobs: blobsB) == expected.1 else { return .mismatched("fingerprintB") }
            guard try SafetyNumber.compute(userA: userA, blobsA: blobsA, userB: userB, blobsB: blobsB) == expected.2,
                  try SafetyNumber.compute(userA: userB, blobsA: blobsB, userB: userA, blobsB: blobsA) == expected.2 else {
                return .mismatched("safetyNumber")
            }
            return .matched
        }
    }

    /// One user of a `SafetyNumberUserKeyTest`: the id and the half (`userKey<side>` when not
    /// empty, else `blobs<side>`).
    private func half(_ vector: VectorCase, _ side: String) throws -> (user: String, half: SafetyNumber.UserHalf) {
        let user = try vector.text("user" + side), key = try vector.hex("userKey" + side), devices = try blobs(vector, "blobs" + side)
        guard key.isEmpty || devices.isEmpty else { throw VectorFieldError(field: "userKey\(side) and blobs\(side) both given") }
        return (user, key.isEmpty ? .devices(devices) : .userKey(key))
    }

    private func userKeyAttempt(_ vector: VectorCase) throws -> Attempt {
        let a = try half(vector, "A"), b = try half(vector, "B")
        let view = { (local: (user: String, half: SafetyNumber.UserHalf), remote: (user: String, half: SafetyNumber.UserHalf)) in
            try SafetyNumber(localUserID: local.user, local: local.half, remoteUserID: remote.user, remote: remote.half)
        }
        guard vector.result == .valid else {
            let expected = try vector.text("failure")
            for (local, remote) in [(a, b), (b, a)] {
                if let problem = refusalProblem(expected: expected, { _ = try view(local, remote) }) { return .misrefused(problem) }
            }
            return .rejected(ExpectedRefusal(failure: expected))
        }
        let expected = (a: try vector.text("fingerprintA"), b: try vector.text("fingerprintB"), number: try vector.text("safetyNumber"),
                        scannable: try vector.hex("scannableForm"))
        func fingerprint(_ side: (user: String, half: SafetyNumber.UserHalf)) throws -> String {
            switch side.half {
            case .devices(let blobs): try SafetyNumber.fingerprint(userID: side.user, identityBlobs: blobs)
            case .userKey(let key): try SafetyNumber.fingerprint(userID: side.user, userKey: key)
            }
        }
        return refusing {
            try check(try fingerprint(a) == expected.a, "fingerprintA")
            try check(try fingerprint(b) == expected.b, "fingerprintB")
            let aView = try view(a, b), bView = try view(b, a)
            try check(aView.localDigits == expected.a && bView.remoteDigits == expected.a, "fingerprintA of the values")
            try check(aView.remoteDigits == expected.b && bView.localDigits == expected.b, "fingerprintB of the values")
            try check(try SafetyNumber.combine(expected.a, expected.b) == expected.number, "safetyNumber")
            try check(aView.displayText == expected.number && bView.displayText == expected.number && aView == bView, "safetyNumber of the values")
            try check(aView.scannableForm == expected.scannable, "scannableForm")
            try check(bView.compare(scanned: expected.scannable) == .match && aView.compare(scanned: bView.scannableForm) == .match,
                      "the scannable forms do not match across sides")
            return .matched
        }
    }

    private func blobs(_ vector: VectorCase, _ name: String) throws -> [[UInt8]] {
        guard let list = vector.fields[name]?.array else { throw VectorFieldError(field: name) }
        return try list.map { item in
            guard let text = item.string, let bytes = HexText.decode(text) else { throw VectorFieldError(field: name) }
            return bytes
        }
    }
}
