import E2EECrypto

/// Wycheproof `HKDF-SHA-256`: `ikm`, `salt`, `info`, `size` → `okm`.
struct HKDFRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["HKDF-SHA-256"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let (ikm, salt, info) = (try vector.hex("ikm"), try vector.hex("salt"), try vector.hex("info"))
        let (size, okm) = (try vector.int("size"), try vector.hex("okm"))
        return refusing {
            let derived = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputLength: size)
            return compare(derived.unprotectedCopy(), okm)
        }
    }
}

/// Wycheproof `HMACSHA256`: `key`, `msg` → `tag`, truncated to the group's `tagSize` bits.
struct HMACRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["HMACSHA256"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let (key, message, tag) = (try vector.hex("key"), try vector.hex("msg"), try vector.hex("tag"))
        let tagBytes = (vector.groupInt("tagSize") ?? 256) / 8
        return refusing {
            let full = HMACSHA256.authenticationCode(for: message, key: key).unprotectedCopy()
            let computed = Array(full.prefix(tagBytes))
            // The verifying API must agree with the computed comparison.
            if tag.count >= 16, HMACSHA256.isValid(tag: tag, for: message, key: key) != (computed == tag) {
                return .mismatched("isValid disagrees with the computed tag")
            }
            return compare(computed, tag)
        }
    }
}

/// Our `ARGON2ID` extension: `password`, `salt`, `iterations`, `memoryKiB`, `parallelism`,
/// `size` → `tag`. libsodium supports parallelism 1 only.
struct Argon2idRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["ARGON2ID"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let parallelism = (try? vector.int("parallelism")) ?? 1
        guard parallelism == 1 else { return .unsupported("parallelism \(parallelism)") }
        let (password, salt, tag) = (try vector.hex("password"), try vector.hex("salt"), try vector.hex("tag"))
        let parameters = Argon2id.Parameters(
            iterations: UInt64(try vector.int("iterations")), memoryKiB: UInt64(try vector.int("memoryKiB"))
        )
        let size = try vector.int("size")
        return refusing {
            let key = try Argon2id.deriveKey(password: password, salt: salt, parameters: parameters, outputLength: size)
            return compare(key.unprotectedCopy(), tag)
        }
    }
}

/// Our `SHA-256` / `SHA-512` extension: `msg` → `digest`.
struct HashRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["SHA-256", "SHA-512"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let (message, digest) = (try vector.hex("msg"), try vector.hex("digest"))
        return compare(vector.algorithm == "SHA-512" ? SHA512.hash(message) : SHA256.hash(message), digest)
    }
}
