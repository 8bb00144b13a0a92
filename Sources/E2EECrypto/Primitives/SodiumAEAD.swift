import CSodium

/// The shared shape of libsodium's combined-mode AEAD functions (ciphertext followed by tag),
/// so AES-256-GCM and XChaCha20-Poly1305 share one checked implementation.
struct SodiumAEAD: Sendable {
    typealias Encrypt = @Sendable (
        UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>?, UnsafePointer<UInt8>?, UInt64,
        UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>?, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32
    typealias Decrypt = @Sendable (
        UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>, UInt64, UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>, UnsafePointer<UInt8>
    ) -> Int32

    let keyLength: Int
    let nonceLength: Int
    let tagLength: Int
    let encrypt: Encrypt
    let decrypt: Decrypt

    /// `ciphertext || tag`.
    func seal(_ plaintext: some ByteView, key: some ByteView, nonce: some ByteView, aad: some ByteView) throws -> [UInt8] {
        try key.withByteView { k in
            try requireLength(k, keyLength, .key)
            return try nonce.withByteView { n in
                try requireLength(n, nonceLength, .nonce)
                return plaintext.withByteView { m in
                    aad.withByteView { a in
                        var output = [UInt8](repeating: 0, count: m.count + tagLength)
                        var written: UInt64 = 0
                        output.withUnsafeMutableBytes { c in
                            _ = encrypt(c.cBase, &written, m.cBase, UInt64(m.count), a.cBase, UInt64(a.count), nil, n.cBase, k.cBase)
                        }
                        return output
                    }
                }
            }
        }
    }

    /// The plaintext of `ciphertext || tag`, or a typed error; nothing is returned unverified.
    func open(_ sealed: some ByteView, key: some ByteView, nonce: some ByteView, aad: some ByteView) throws -> SecretBytes {
        try key.withByteView { k in
            try requireLength(k, keyLength, .key)
            return try nonce.withByteView { n in
                try requireLength(n, nonceLength, .nonce)
                return try sealed.withByteView { c in
                    guard c.count >= tagLength else {
                        throw CryptoError.lengthOutOfRange(.ciphertext, minimum: tagLength, maximum: Int.max, actual: c.count)
                    }
                    return try aad.withByteView { a in
                        try SecretBytes(count: c.count - tagLength) { m in
                            var written: UInt64 = 0
                            let status = decrypt(m.cBase, &written, nil, c.cBase, UInt64(c.count), a.cBase, UInt64(a.count), n.cBase, k.cBase)
                            guard status == 0 else { throw CryptoError.authenticationFailed }
                        }
                    }
                }
            }
        }
    }
}
