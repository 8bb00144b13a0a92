/// HKDF with SHA-256, exactly RFC 5869 (libsodium 1.0.18 has none; this is built on its HMAC).
public enum HKDF {
    /// The largest output RFC 5869 allows with SHA-256: 255 blocks of 32 bytes.
    public static let maximumOutputLength = 255 * HMACSHA256.tagLength

    /// HKDF-Extract: the pseudorandom key `HMAC(salt, ikm)`. An empty salt means 32 zero bytes
    /// (RFC 5869 §2.2), which HMAC treats identically.
    public static func extract(salt: some ByteView, inputKeyMaterial ikm: some ByteView) -> SecretBytes {
        HMACSHA256.authenticationCode(for: ikm, key: salt)
    }

    /// HKDF-Expand: `outputLength` bytes from `prk` and `info`.
    /// - Throws: ``CryptoError/lengthOutOfRange(_:minimum:maximum:actual:)`` when
    ///   `outputLength` is negative or above ``maximumOutputLength``, or when `prk` is shorter
    ///   than 32 bytes.
    public static func expand(pseudoRandomKey prk: some ByteView, info: some ByteView, outputLength: Int) throws -> SecretBytes {
        guard (0...maximumOutputLength).contains(outputLength) else {
            throw CryptoError.lengthOutOfRange(.outputLength, minimum: 0, maximum: maximumOutputLength, actual: outputLength)
        }
        let prkLength = prk.withByteView { $0.count }
        guard prkLength >= HMACSHA256.tagLength else {
            throw CryptoError.lengthOutOfRange(.key, minimum: HMACSHA256.tagLength, maximum: Int.max, actual: prkLength)
        }
        return SecretBytes(count: outputLength) { out in
            var previous: SecretBytes?
            var written = 0
            var counter: UInt8 = 1
            while written < outputLength {
                var parts: [any ByteView] = []
                if let previous { parts.append(previous) }
                parts.append(info)
                parts.append([counter])
                let block = HMACSHA256.authenticationCode(for: parts, key: prk)
                let take = min(block.count, outputLength - written)
                block.withUnsafeBytes { b in
                    UnsafeMutableRawBufferPointer(rebasing: out[written..<(written + take)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: b[0..<take]))
                }
                written += take
                previous = block
                counter &+= 1
            }
        }
    }

    /// Extract then expand: `outputLength` bytes of key material.
    /// - Throws: as ``expand(pseudoRandomKey:info:outputLength:)``.
    public static func deriveKey(inputKeyMaterial ikm: some ByteView, salt: some ByteView, info: some ByteView, outputLength: Int) throws -> SecretBytes {
        let prk = extract(salt: salt, inputKeyMaterial: ikm)
        return try expand(pseudoRandomKey: prk, info: info, outputLength: outputLength)
    }
}
