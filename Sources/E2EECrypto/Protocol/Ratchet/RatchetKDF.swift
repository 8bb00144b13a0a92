/// The Double Ratchet's key derivations, exactly as docs/spec/protocol.md §3 fixes them.
enum RatchetKDF {
    static let rootInfo = Array("e2ee-ratchet-v1".utf8)
    static let messageInfo = Array("e2ee-msg-v2".utf8)
    static let zero32 = [UInt8](repeating: 0, count: 32)

    /// `KDF_RK(rk, dh) = HKDF(salt = rk, ikm = dh, info = "e2ee-ratchet-v1", L = 64)`:
    /// the new root key (first 32 bytes) and a chain key (last 32).
    static func root(_ rootKey: SecretBytes, _ dh: SecretBytes) throws -> (rootKey: SecretBytes, chainKey: SecretBytes) {
        let output = try mapCrypto { try HKDF.deriveKey(inputKeyMaterial: dh, salt: rootKey, info: rootInfo, outputLength: 64) }
        return (output.slice(0..<32), output.slice(32..<64))
    }

    /// `KDF_CK(ck)`: the message key `HMAC(ck, 0x01)` and the next chain key `HMAC(ck, 0x02)`.
    static func chain(_ chainKey: SecretBytes) -> (messageKey: SecretBytes, nextChainKey: SecretBytes) {
        (HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey),
         HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey))
    }

    /// `HKDF(salt = ZERO32, ikm = mk, info = "e2ee-msg-v2", L = 32)`: the AES-256 key of a
    /// message key. The nonce is not derived: it is random and travels in the header (§3.4).
    static func messageAEADKey(_ messageKey: SecretBytes) throws -> SecretBytes {
        try mapCrypto { try HKDF.deriveKey(inputKeyMaterial: messageKey, salt: zero32, info: messageInfo, outputLength: 32) }
    }

    /// Seals `plaintext` under a message key and the header's nonce, with associated data
    /// `AD || header`.
    static func seal(_ plaintext: some ByteView, messageKey: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        let key = try messageAEADKey(messageKey)
        return try mapCrypto { try AES256GCM.seal(plaintext, key: key, nonce: nonce, authenticating: associatedData) }
    }

    /// Opens `ciphertext` under a message key and the header's nonce.
    /// - Throws: ``ProtocolError/badTag`` when it does not verify.
    static func open(_ ciphertext: [UInt8], messageKey: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> SecretBytes {
        let key = try messageAEADKey(messageKey)
        return try mapCrypto { try AES256GCM.open(ciphertext, key: key, nonce: nonce, authenticating: associatedData) }
    }

    /// Runs `body`, turning primitive errors into protocol errors.
    static func mapCrypto<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch CryptoError.authenticationFailed {
            throw ProtocolError.badTag
        } catch CryptoError.allZeroSharedSecret {
            throw ProtocolError.allZeroSharedSecret
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
    }
}
