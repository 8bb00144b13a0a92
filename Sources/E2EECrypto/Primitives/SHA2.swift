import CSodium

/// SHA-256 (FIPS 180-4) through libsodium.
public enum SHA256 {
    /// The digest length in bytes.
    public static let digestLength = Int(crypto_hash_sha256_BYTES)

    /// The SHA-256 digest of `data`.
    @inlinable
    public static func hash(_ data: some ByteView) -> [UInt8] {
        data.withByteView { hash(bytes: $0) }
    }

    /// The SHA-256 digest of `text`'s UTF-8 bytes: read where the string keeps them (a native
    /// string keeps them contiguous), copied once only when it does not.
    package static func hash(utf8 text: String) -> [UInt8] {
        if let digest = text.utf8.withContiguousStorageIfAvailable({ hash(bytes: UnsafeRawBufferPointer($0)) }) { return digest }
        return hash(Array(text.utf8))
    }

    /// Non-generic core of ``hash(_:)``.
    @usableFromInline
    static func hash(bytes input: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestLength) { buffer, initialized in
            _ = crypto_hash_sha256(UnsafeMutableRawBufferPointer(buffer).cBase, input.cBase, UInt64(input.count))
            initialized = digestLength
        }
    }
}

/// SHA-512 (FIPS 180-4) through libsodium.
public enum SHA512 {
    /// The digest length in bytes.
    public static let digestLength = Int(crypto_hash_sha512_BYTES)

    /// The SHA-512 digest of `data`.
    @inlinable
    public static func hash(_ data: some ByteView) -> [UInt8] {
        data.withByteView { hash(bytes: $0) }
    }

    /// Non-generic core of ``hash(_:)``.
    @usableFromInline
    static func hash(bytes input: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestLength) { buffer, initialized in
            _ = crypto_hash_sha512(UnsafeMutableRawBufferPointer(buffer).cBase, input.cBase, UInt64(input.count))
            initialized = digestLength
        }
    }
}
