import CSodium

/// XChaCha20-Poly1305 (IETF construction, 192-bit nonce) through libsodium; used for data at
/// rest, where random nonces must never collide.
public enum XChaCha20Poly1305 {
    /// Key length in bytes.
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// Nonce length in bytes.
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// Tag length in bytes.
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    private static let aead = SodiumAEAD(
        keyLength: keyLength, nonceLength: nonceLength, tagLength: tagLength,
        encrypt: crypto_aead_xchacha20poly1305_ietf_encrypt, decrypt: crypto_aead_xchacha20poly1305_ietf_decrypt
    )

    /// Encrypts `plaintext`; returns `ciphertext || tag`.
    /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)`` for a wrong key or nonce length.
    public static func seal(_ plaintext: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> [UInt8] {
        try Sodium.ensureInitialized()
        return try aead.seal(plaintext, key: key, nonce: nonce, aad: aad)
    }

    /// Decrypts and verifies `ciphertext || tag`.
    /// - Throws: ``CryptoError/authenticationFailed`` when anything was altered, or a length error.
    public static func open(_ sealed: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> SecretBytes {
        try Sodium.ensureInitialized()
        return try aead.open(sealed, key: key, nonce: nonce, aad: aad)
    }
}
