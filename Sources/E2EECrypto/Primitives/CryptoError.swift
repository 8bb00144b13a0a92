/// What a byte string was meant to be, named in length errors.
public enum CryptoField: String, Sendable, Equatable {
    case key, nonce, publicKey, privateKey, seed, signature, salt, tag, ciphertext, outputLength
}

/// Every failure of the cryptographic primitives.
///
/// Primitives never trap on bad input: a wrong length, a forged tag or an impossible parameter
/// is one of these cases, and no output is produced.
public enum CryptoError: Error, Sendable, Equatable {
    /// libsodium could not be initialised (`sodium_init` failed).
    case sodiumInitializationFailed
    /// AES-256-GCM needs hardware AES, which this CPU lacks
    /// (`crypto_aead_aes256gcm_is_available()` is false).
    case aesGCMUnavailable
    /// A byte string had the wrong length for what it was meant to be.
    case invalidLength(CryptoField, expected: Int, actual: Int)
    /// A length outside the range a primitive allows (for instance HKDF's 255·32 bytes).
    case lengthOutOfRange(CryptoField, minimum: Int, maximum: Int, actual: Int)
    /// An X25519 computation produced the all-zero shared secret (a low-order peer key).
    case allZeroSharedSecret
    /// A public key is not a valid point for its algorithm.
    case invalidPublicKey
    /// A signature did not verify.
    case invalidSignature
    /// An AEAD tag did not verify: the ciphertext, nonce, key or associated data is wrong.
    case authenticationFailed
    /// Argon2id parameters outside what libsodium accepts.
    case invalidPasswordHashParameters(reason: String)
    /// Argon2id could not run (typically: the memory limit could not be allocated).
    case passwordHashingFailed
}
