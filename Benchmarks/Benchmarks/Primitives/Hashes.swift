import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// SHA-256, SHA-512 and HMAC-SHA256 over 1 KiB.
func registerHashBenchmarks(_ fixtures: Fixtures) {
    let message = fixtures.message
    let length = UInt64(message.count)

    pair("SHA-256", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(SHA256.hash(message)) }
    }, direct: { benchmark in
        let input = CBuffer(copying: message)
        let digest = CBuffer(count: SHA256.digestLength)
        let (m, out) = (input.readOnly, digest.pointer)
        benchmark.measureLoop { blackHole(crypto_hash_sha256(out, m, length)) }
        withExtendedLifetime((input, digest)) {}
    })

    pair("SHA-512", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(SHA512.hash(message)) }
    }, direct: { benchmark in
        let input = CBuffer(copying: message)
        let digest = CBuffer(count: SHA512.digestLength)
        let (m, out) = (input.readOnly, digest.pointer)
        benchmark.measureLoop { blackHole(crypto_hash_sha512(out, m, length)) }
        withExtendedLifetime((input, digest)) {}
    })

    // The wrapper wipes the HMAC state (it holds the key pads); the direct version does too,
    // so the difference is the wrapper's own cost (closures, SecretBytes output).
    let key = fixtures.key
    pair("HMAC-SHA256", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(HMACSHA256.authenticationCode(for: message, key: key)) }
    }, direct: { benchmark in
        let input = CBuffer(copying: message)
        let keyBuffer = CBuffer(copying: key)
        let tag = CBuffer(count: HMACSHA256.tagLength)
        let (m, k, out) = (input.readOnly, keyBuffer.readOnly, tag.pointer)
        let keyLength = keyBuffer.count
        var state = crypto_auth_hmacsha256_state()
        benchmark.measureLoop {
            _ = crypto_auth_hmacsha256_init(&state, k, keyLength)
            _ = crypto_auth_hmacsha256_update(&state, m, length)
            _ = crypto_auth_hmacsha256_final(&state, out)
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
            blackHole(out.pointee)
        }
        withExtendedLifetime((input, keyBuffer, tag)) {}
    })
}
