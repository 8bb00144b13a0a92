import CSodium

/// The libsodium calls the protocol makes, on C buffers and with nothing else around them: the
/// floor each protocol benchmark, and the ingest floor, is compared with. HMAC states are wiped
/// after use, as the wrappers do (and as the Primitives suite's direct side does). Inlinable, so
/// the suites call them as if they were their own.
public enum SodiumFloor {
    public static let macLength = Int(crypto_auth_hmacsha256_BYTES)

    /// `HMAC-SHA256(key, message)` into `output` (32 bytes).
    @inlinable @inline(__always)
    public static func mac(key: UnsafePointer<UInt8>, keyLength: Int, message: UnsafePointer<UInt8>, messageLength: Int,
                    into output: UnsafeMutablePointer<UInt8>) {
        var state = crypto_auth_hmacsha256_state()
        _ = crypto_auth_hmacsha256_init(&state, key, keyLength)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(messageLength))
        _ = crypto_auth_hmacsha256_final(&state, output)
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// `HMAC-SHA256(key, [byte])`, the ratchets' chain step (`0x01` message key, `0x02` next chain key).
    @inlinable @inline(__always)
    public static func mac(key: UnsafePointer<UInt8>, byte: UInt8, into output: UnsafeMutablePointer<UInt8>) {
        var byte = byte
        withUnsafePointer(to: &byte) { mac(key: key, keyLength: macLength, message: $0, messageLength: 1, into: output) }
    }

    /// RFC 5869 HKDF-SHA256 with the same HMAC calls as `HKDF.deriveKey`: extract, then
    /// `T(i) = HMAC(PRK, T(i-1) || info || i)`. `scratch` holds the PRK (32 bytes) and the last
    /// block (32 bytes); both are wiped, as the wrapper wipes them.
    @inlinable @inline(__always)
    public static func hkdf(salt: UnsafePointer<UInt8>, saltLength: Int, ikm: UnsafePointer<UInt8>, ikmLength: Int,
                     info: UnsafePointer<UInt8>, infoLength: Int, into output: UnsafeMutablePointer<UInt8>, outputLength: Int,
                     scratch: UnsafeMutablePointer<UInt8>) {
        let prk = scratch
        let block = scratch + macLength
        mac(key: salt, keyLength: saltLength, message: ikm, messageLength: ikmLength, into: prk)
        var state = crypto_auth_hmacsha256_state()
        var written = 0
        var counter: UInt8 = 1
        while written < outputLength {
            _ = crypto_auth_hmacsha256_init(&state, prk, macLength)
            if written > 0 { _ = crypto_auth_hmacsha256_update(&state, block, UInt64(macLength)) }
            _ = crypto_auth_hmacsha256_update(&state, info, UInt64(infoLength))
            _ = crypto_auth_hmacsha256_update(&state, &counter, 1)
            _ = crypto_auth_hmacsha256_final(&state, block)
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
            let take = min(macLength, outputLength - written)
            (output + written).update(from: block, count: take)
            written += take
            counter &+= 1
        }
        sodium_memzero(scratch, 2 * macLength)
    }

    /// `X25519(scalar, point)` plus the all-zero check the protocol makes.
    @inlinable @inline(__always)
    public static func dh(_ output: UnsafeMutablePointer<UInt8>, scalar: UnsafePointer<UInt8>, point: UnsafePointer<UInt8>) throws {
        guard crypto_scalarmult(output, scalar, point) == 0, sodium_is_zero(output, 32) == 0 else {
            throw DirectCallFailed(function: "crypto_scalarmult")
        }
    }

    /// A fresh X25519 key pair as `X25519.PrivateKey(using: SystemRandom())` makes it:
    /// 32 random bytes, then `crypto_scalarmult_base`.
    @inlinable @inline(__always)
    public static func keyPair(scalar: UnsafeMutablePointer<UInt8>, publicKey: UnsafeMutablePointer<UInt8>) {
        randombytes_buf(scalar, 32)
        _ = crypto_scalarmult_base(publicKey, scalar)
    }
}
