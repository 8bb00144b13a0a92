import CSodium

/// HKDF with SHA-256, exactly RFC 5869 (libsodium 1.0.18 has none: this is built on its HMAC).
public enum HKDF {
    /// The largest output RFC 5869 allows with SHA-256: 255 blocks of 32 bytes.
    public static let maximumOutputLength = 255 * HMACSHA256.tagLength

    /// HKDF-Extract: the pseudorandom key `HMAC(salt, ikm)`. An empty salt means 32 zero bytes
    /// (RFC 5869 §2.2), which HMAC treats identically.
    @inlinable
    public static func extract(salt: some ByteView, inputKeyMaterial ikm: some ByteView) -> SecretBytes {
        HMACSHA256.authenticationCode(for: ikm, key: salt)
    }

    /// HKDF-Expand: `outputLength` bytes from `prk` and `info`.
    /// - Throws: ``CryptoError/lengthOutOfRange(_:minimum:maximum:actual:)`` when
    ///   `outputLength` is negative or above ``maximumOutputLength``, or when `prk` is shorter
    ///   than 32 bytes.
    @inlinable
    public static func expand(pseudoRandomKey prk: some ByteView, info: some ByteView, outputLength: Int) throws -> SecretBytes {
        try prk.withByteView { p in
            try info.withByteView { i in
                try SecretBytes(count: try checkedOutputLength(outputLength)) { out in try expand(prk: p, info: i, into: out) }
            }
        }
    }

    /// Extract then expand: `outputLength` bytes of key material.
    /// - Throws: as ``expand(pseudoRandomKey:info:outputLength:)``.
    @inlinable
    public static func deriveKey(inputKeyMaterial ikm: some ByteView, salt: some ByteView, info: some ByteView, outputLength: Int) throws -> SecretBytes {
        try ikm.withByteView { k in
            try salt.withByteView { s in
                try info.withByteView { i in
                    try SecretBytes(count: try checkedOutputLength(outputLength)) { out in try deriveKey(ikm: k, salt: s, info: i, into: out) }
                }
            }
        }
    }

    /// `length` when it is a valid output length.
    @usableFromInline
    static func checkedOutputLength(_ length: Int) throws -> Int {
        guard (0...maximumOutputLength).contains(length) else {
            throw CryptoError.lengthOutOfRange(.outputLength, minimum: 0, maximum: maximumOutputLength, actual: length)
        }
        return length
    }

    /// Extract into a wiped stack buffer, then expand into `output`.
    @usableFromInline
    static func deriveKey(ikm: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer,
                          into output: UnsafeMutableRawBufferPointer) throws {
        try withUnsafeTemporaryAllocation(byteCount: HMACSHA256.tagLength, alignment: 16) { prk in
            defer { sodium_memzero(prk.baseAddress, prk.count) }
            var state = HMACState(key: salt)
            state.update(ikm)
            state.finish(into: prk)
            try expand(prk: UnsafeRawBufferPointer(prk), info: info, into: output)
        }
    }

    /// RFC 5869 §2.3: `T(i) = HMAC(PRK, T(i-1) || info || i)`, written block by block straight
    /// into `output`; the previous block is read back from `output` (or, for the last partial
    /// block, from a wiped stack buffer).
    @usableFromInline
    static func expand(prk: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        _ = try checkedOutputLength(output.count)
        guard prk.count >= HMACSHA256.tagLength else {
            throw CryptoError.lengthOutOfRange(.key, minimum: HMACSHA256.tagLength, maximum: Int.max, actual: prk.count)
        }
        let blockLength = HMACSHA256.tagLength
        withUnsafeTemporaryAllocation(byteCount: blockLength, alignment: 16) { block in
            defer { sodium_memzero(block.baseAddress, block.count) }
            var written = 0
            var counter: UInt8 = 1
            while written < output.count {
                var state = HMACState(key: prk)
                if written > 0 { state.update(UnsafeRawBufferPointer(block)) }
                state.update(info)
                withUnsafeBytes(of: counter) { state.update($0) }
                state.finish(into: block)
                let take = min(blockLength, output.count - written)
                UnsafeMutableRawBufferPointer(rebasing: output[written..<(written + take)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: block[0..<take]))
                written += take
                counter &+= 1
            }
        }
    }
}
