import CSodium

/// AES-256-GCM with a 96-bit nonce and a 128-bit tag, through libsodium.
///
/// libsodium provides it only on CPUs with hardware AES; every call checks
/// ``isAvailable`` and throws ``CryptoError/aesGCMUnavailable`` otherwise.
public enum AES256GCM {
    /// Key length in bytes.
    public static let keyLength = Int(crypto_aead_aes256gcm_KEYBYTES)
    /// Nonce length in bytes.
    public static let nonceLength = Int(crypto_aead_aes256gcm_NPUBBYTES)
    /// Tag length in bytes.
    public static let tagLength = Int(crypto_aead_aes256gcm_ABYTES)

    @usableFromInline static let aead = SodiumAEAD(
        keyLength: keyLength, nonceLength: nonceLength, tagLength: tagLength,
        encrypt: crypto_aead_aes256gcm_encrypt, decrypt: crypto_aead_aes256gcm_decrypt
    )

    /// `true` when this CPU supports libsodium's AES-256-GCM.
    public static var isAvailable: Bool {
        (try? Sodium.ensureInitialized()) != nil && crypto_aead_aes256gcm_is_available() == 1
    }

    /// Throws unless AES-256-GCM can run here.
    /// - Throws: ``CryptoError/aesGCMUnavailable`` or ``CryptoError/sodiumInitializationFailed``.
    public static func requireAvailable() throws {
        try Sodium.ensureInitialized()
        guard crypto_aead_aes256gcm_is_available() == 1 else { throw CryptoError.aesGCMUnavailable }
    }

    /// Encrypts `plaintext`; returns `ciphertext || tag`.
    /// - Throws: ``CryptoError/aesGCMUnavailable``, or
    ///   ``CryptoError/invalidLength(_:expected:actual:)`` for a wrong key or nonce length.
    @inlinable
    public static func seal(_ plaintext: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> [UInt8] {
        try requireAvailable()
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
        try requireAvailable()
        try key.withByteView { k in try nonce.withByteView { n in try aead.seal(plaintext, key: k, nonce: n, aad: aad, into: output) } }
    }

    /// Decrypts and verifies `ciphertext || tag`.
    /// - Throws: ``CryptoError/authenticationFailed`` when anything was altered,
    ///   ``CryptoError/lengthOutOfRange(_:minimum:maximum:actual:)`` when shorter than a tag,
    ///   ``CryptoError/aesGCMUnavailable``, or a length error for key or nonce.
    @inlinable
    public static func open(_ sealed: some ByteView, key: some ByteView, nonce: some ByteView, authenticating aad: some ByteView) throws -> SecretBytes {
        try requireAvailable()
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
        try requireAvailable()
        try key.withByteView { k in try nonce.withByteView { n in try aead.open(sealed, key: k, nonce: n, aad: aad, into: output) } }
    }
}
