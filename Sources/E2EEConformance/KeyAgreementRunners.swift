import E2EECrypto

/// Wycheproof `XDH` (X25519 only): `private`, `public` → `shared`.
struct XDHRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["XDH"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        if let curve = vector.group["curve"]?.string, curve != "curve25519" {
            return .unsupported("curve \(curve)")
        }
        let (privateBytes, publicBytes, shared) = (try vector.hex("private"), try vector.hex("public"), try vector.hex("shared"))
        return refusing {
            let privateKey = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: privateBytes))
            let secret = try privateKey.sharedSecret(with: X25519.PublicKey(rawRepresentation: publicBytes))
            return compare(secret.unprotectedCopy(), shared)
        }
    }
}

/// Our `XDH-ITERATED` extension (RFC 7748 §5.2): starting from `k` and `u`, repeat
/// `(k, u) = (X25519(k, u), k)` `iterations` times; the final `k` is `shared`.
struct XDHIteratedRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["XDH-ITERATED"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        var k = try vector.hex("k")
        var u = try vector.hex("u")
        let iterations = try vector.int("iterations")
        let expected = try vector.hex("shared")
        return refusing {
            for _ in 0..<iterations {
                let next = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: k))
                    .sharedSecret(with: X25519.PublicKey(rawRepresentation: u))
                u = k
                k = next.unprotectedCopy()
            }
            return compare(k, expected)
        }
    }
}

/// Wycheproof `EDDSA` (Ed25519 only). The key is the group's `publicKey` (newer files) or `key`
/// (older ones); when the group also has the private seed `sk`, a valid vector's signature must
/// also be reproduced exactly (Ed25519 signing is deterministic).
struct EdDSARunner: AlgorithmRunner {
    let algorithms: Set<String> = ["EDDSA"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let key = vector.group["publicKey"] ?? vector.group["key"]
        if let curve = key?["curve"]?.string, curve != "edwards25519" {
            return .unsupported("curve \(curve)")
        }
        guard let publicHex = key?["pk"]?.string else { throw VectorFieldError(field: "publicKey.pk") }
        guard let publicBytes = HexText.decode(publicHex) else { throw VectorFieldError(field: "publicKey.pk") }
        let seedHex = vector.group["privateKey"]?["sk"]?.string ?? vector.group["key"]?["sk"]?.string
        let seed = try seedHex.map { text in
            guard let bytes = HexText.decode(text) else { throw VectorFieldError(field: "privateKey.sk") }
            return bytes
        }
        let (message, signature) = (try vector.hex("msg"), try vector.hex("sig"))
        return refusing {
            let publicKey = try Ed25519.PublicKey(rawRepresentation: publicBytes)
            try publicKey.verify(signature, for: message)
            if let seed, vector.result == .valid {
                let privateKey = try Ed25519.PrivateKey(seed: SecretBytes(copying: seed))
                guard privateKey.publicKey == publicKey else { return .mismatched("public key derived from the seed") }
                return compare(privateKey.signature(for: message), signature)
            }
            return .matched
        }
    }
}
