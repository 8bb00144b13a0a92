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

    @usableFromInline static let aead = SodiumAEAD(
        keyLength: keyLength, nonceLength: nonceLength, tagLength: tagLength,
        encrypt: crypto_aead_xchacha20poly1305_ietf_encrypt, decrypt: crypto_aead_xchacha20poly1305_ietf_decrypt
    )

    /// Encrypts `plaintext`; returns `ciphertext || tag`.
    /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)`` for a wrong key or nonce length.
    @inlinable
    public static func seal(_ plaintext: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> [UInt8] {
        try requireInitialized()
        return try plaintext.withByteView { m in
            try key.withByteView { k in
                try nonce.withByteView { n in try aad.withByteView { a in try aead.seal(m, key: k, nonce: n, aad: a) } }
            }
        }
    }

    /// Encrypts `plaintext` into `output`, which must hold exactly `plaintext.count + tagLength`
    /// bytes: for callers that assemble a message in a buffer of their own, with no allocation.
    /// - Throws: as ``seal(_:key:nonce:authenticating:)``, or
    ///   ``CryptoError/invalidLength(_:expected:actual:)`` for an output of the wrong size.
    @inlinable
    public static func seal(_ plaintext: UnsafeRawBufferPointer, key: some ByteView, nonce: some ByteView,
                            authenticating aad: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        try requireInitialized()
        try key.withByteView { k in try nonce.withByteView { n in try aead.seal(plaintext, key: k, nonce: n, aad: aad, into: output) } }
    }

    /// Decrypts and verifies `ciphertext || tag`.
    /// - Throws: ``CryptoError/authenticationFailed`` when anything was altered, or a length error.
    @inlinable
    public static func open(_ sealed: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> SecretBytes {
        try requireInitialized()
        return try sealed.withByteView { c in
            try key.withByteView { k in
                try nonce.withByteView { n in try aad.withByteView { a in try aead.open(c, key: k, nonce: n, aad: a) } }
            }
        }
    }

    /// Decrypts and verifies into `output`, which must hold exactly `sealed.count - tagLength`
    /// bytes (for instance the buffer of a ``SecretBytes`` being initialised); nothing is written
    /// unless the tag verifies.
    /// - Throws: as ``open(_:key:nonce:authenticating:)``, or
    ///   ``CryptoError/invalidLength(_:expected:actual:)`` for an output of the wrong size.
    @inlinable
    public static func open(_ sealed: UnsafeRawBufferPointer, key: some ByteView, nonce: some ByteView,
                            authenticating aad: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        try requireInitialized()
        try key.withByteView { k in try nonce.withByteView { n in try aead.open(sealed, key: k, nonce: n, aad: aad, into: output) } }
    }

    /// Initialises libsodium (once per process).
    /// - Throws: ``CryptoError/sodiumInitializationFailed``.
    @usableFromInline
    static func requireInitialized() throws { try Sodium.ensureInitialized() }
}
