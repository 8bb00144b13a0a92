import E2EECrypto

/// Wycheproof `AES-GCM` and `XCHACHA20-POLY1305`: `key`, `iv`, `aad`, `msg` ↔ `ct`, `tag`.
/// A valid vector must encrypt to exactly `ct || tag` and decrypt back to `msg`; an invalid one
/// must fail to decrypt. AES-GCM groups with a nonce other than 96 bits or a tag other than
/// 128 bits are unsupported by libsodium and counted as skipped.
struct AEADRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["AES-GCM", "XCHACHA20-POLY1305"]

    private struct Cipher: Sendable {
        let nonceBits: Int
        let seal: @Sendable ([UInt8], [UInt8], [UInt8], [UInt8]) throws -> [UInt8]
        let open: @Sendable ([UInt8], [UInt8], [UInt8], [UInt8]) throws -> SecretBytes
    }

    private static let aesGCM = Cipher(
        nonceBits: AES256GCM.nonceLength * 8,
        seal: { try AES256GCM.seal($0, key: $1, nonce: $2, authenticating: $3) },
        open: { try AES256GCM.open($0, key: $1, nonce: $2, authenticating: $3) }
    )

    private static let xChaCha = Cipher(
        nonceBits: XChaCha20Poly1305.nonceLength * 8,
        seal: { try XChaCha20Poly1305.seal($0, key: $1, nonce: $2, authenticating: $3) },
        open: { try XChaCha20Poly1305.open($0, key: $1, nonce: $2, authenticating: $3) }
    )

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let cipher = vector.algorithm == "AES-GCM" ? Self.aesGCM : Self.xChaCha
        if let ivSize = vector.groupInt("ivSize"), ivSize != cipher.nonceBits { return .unsupported("ivSize \(ivSize)") }
        if let tagSize = vector.groupInt("tagSize"), tagSize != 128 { return .unsupported("tagSize \(tagSize)") }
        if let keySize = vector.groupInt("keySize"), keySize != 256 { return .unsupported("keySize \(keySize)") }
        let (key, nonce, aad) = (try vector.hex("key"), try vector.hex("iv"), try vector.hex("aad"))
        let (message, ciphertext, tag) = (try vector.hex("msg"), try vector.hex("ct"), try vector.hex("tag"))
        return refusing {
            let opened = try cipher.open(ciphertext + tag, key, nonce, aad).unprotectedCopy()
            guard opened == message else { return .mismatched("decrypted plaintext") }
            return compare(try cipher.seal(message, key, nonce, aad), ciphertext + tag)
        }
    }
}
