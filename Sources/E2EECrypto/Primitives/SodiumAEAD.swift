import CSodium

/// The shared shape of libsodium's combined-mode AEAD functions (ciphertext followed by tag),
/// so AES-256-GCM and XChaCha20-Poly1305 share one checked implementation.
///
/// The public entry points are `@inlinable` shims that lend their inputs' storage and call the
/// non-generic functions here, so callers get specialised code and no per-call boxing.
@usableFromInline
struct SodiumAEAD: Sendable {
    typealias Encrypt = @Sendable (
        UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>?, UnsafePointer<UInt8>?, UInt64,
        UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>?, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32
    typealias Decrypt = @Sendable (
        UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>, UInt64, UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32

    @usableFromInline let keyLength: Int
    @usableFromInline let nonceLength: Int
    @usableFromInline let tagLength: Int
    let encrypt: Encrypt
    let decrypt: Decrypt

    init(keyLength: Int, nonceLength: Int, tagLength: Int, encrypt: @escaping Encrypt, decrypt: @escaping Decrypt) {
        self.keyLength = keyLength
        self.nonceLength = nonceLength
        self.tagLength = tagLength
        self.encrypt = encrypt
        self.decrypt = decrypt
    }

    /// Writes `ciphertext || tag` into `output`, which must be exactly `plaintext.count + tagLength`.
    @usableFromInline
    func seal(_ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
              aad: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        try requireLength(key, keyLength, .key)
        try requireLength(nonce, nonceLength, .nonce)
        guard output.count == plaintext.count + tagLength else {
            throw CryptoError.invalidLength(.ciphertext, expected: plaintext.count + tagLength, actual: output.count)
        }
        _ = encrypt(output.cBase, nil, plaintext.cBase, UInt64(plaintext.count), aad.cBase, UInt64(aad.count), nil, nonce.cBase, key.cBase)
    }

    /// `ciphertext || tag` in a new array.
    @usableFromInline
    func seal(_ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
              aad: UnsafeRawBufferPointer) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: plaintext.count + tagLength) { buffer, initialized in
            try seal(plaintext, key: key, nonce: nonce, aad: aad, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = buffer.count
        }
    }

    /// Verifies `ciphertext || tag` and writes the plaintext into `output`, which must be exactly
    /// `sealed.count - tagLength`; nothing is written unless the tag verifies.
    @usableFromInline
    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
              aad: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        try requireLength(key, keyLength, .key)
        try requireLength(nonce, nonceLength, .nonce)
        guard sealed.count >= tagLength else {
            throw CryptoError.lengthOutOfRange(.ciphertext, minimum: tagLength, maximum: Int.max, actual: sealed.count)
        }
        guard output.count == sealed.count - tagLength else {
            throw CryptoError.invalidLength(.outputLength, expected: sealed.count - tagLength, actual: output.count)
        }
        let status = decrypt(output.cBase, nil, nil, sealed.cBase, UInt64(sealed.count), aad.cBase, UInt64(aad.count), nonce.cBase, key.cBase)
        guard status == 0 else { throw CryptoError.authenticationFailed }
    }

    /// The verified plaintext of `ciphertext || tag` as a new secret.
    @usableFromInline
    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
              aad: UnsafeRawBufferPointer) throws -> SecretBytes {
        guard sealed.count >= tagLength else {
            throw CryptoError.lengthOutOfRange(.ciphertext, minimum: tagLength, maximum: Int.max, actual: sealed.count)
        }
        return try SecretBytes(count: sealed.count - tagLength) { output in
            try open(sealed, key: key, nonce: nonce, aad: aad, into: output)
        }
    }
}
