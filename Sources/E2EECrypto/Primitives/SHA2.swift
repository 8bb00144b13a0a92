import CSodium

/// SHA-256 (FIPS 180-4) through libsodium.
public enum SHA256 {
    /// The digest length in bytes.
    public static let digestLength = Int(crypto_hash_sha256_BYTES)

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: some ByteView) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        data.withByteView { input in
            digest.withUnsafeMutableBytes { out in
                _ = crypto_hash_sha256(out.cBase, input.cBase, UInt64(input.count))
            }
        }
        return digest
    }
}

/// SHA-512 (FIPS 180-4) through libsodium.
public enum SHA512 {
    /// The digest length in bytes.
    public static let digestLength = Int(crypto_hash_sha512_BYTES)

    /// The SHA-512 digest of `data`.
    public static func hash(_ data: some ByteView) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        data.withByteView { input in
            digest.withUnsafeMutableBytes { out in
                _ = crypto_hash_sha512(out.cBase, input.cBase, UInt64(input.count))
            }
        }
        return digest
    }
}
