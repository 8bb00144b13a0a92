import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// HKDF-SHA256 (64 bytes from 1 KiB of input key material) and Argon2id with small parameters.
func registerKeyDerivationBenchmarks(_ fixtures: Fixtures) {
    let ikm = fixtures.message
    let salt = fixtures.key
    let info = fixtures.info
    let outputLength = 64

    pair("HKDF-SHA256", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputLength: outputLength))
        }
    }, direct: { benchmark in
        // RFC 5869 by hand with the same HMAC calls: PRK = HMAC(salt, ikm);
        // T1 = HMAC(PRK, info || 1); T2 = HMAC(PRK, T1 || info || 2); output = T1 || T2.
        // States and the PRK are wiped, as the wrapper does.
        let ikmBuffer = CBuffer(copying: ikm)
        let saltBuffer = CBuffer(copying: salt)
        let infoBuffer = CBuffer(copying: info)
        let prkBuffer = CBuffer(count: HMACSHA256.tagLength)
        let outputBuffer = CBuffer(count: outputLength)
        let (ikmPointer, saltPointer, infoPointer) = (ikmBuffer.readOnly, saltBuffer.readOnly, infoBuffer.readOnly)
        let (prk, output) = (prkBuffer.pointer, outputBuffer.pointer)
        let (ikmLength, saltLength, infoLength) = (UInt64(ikmBuffer.count), saltBuffer.count, UInt64(infoBuffer.count))
        let tagLength = HMACSHA256.tagLength
        var state = crypto_auth_hmacsha256_state()
        var counter: UInt8 = 0
        benchmark.measureLoop {
            _ = crypto_auth_hmacsha256_init(&state, saltPointer, saltLength)
            _ = crypto_auth_hmacsha256_update(&state, ikmPointer, ikmLength)
            _ = crypto_auth_hmacsha256_final(&state, prk)
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
            var written = 0
            counter = 1
            while written < outputLength {
                _ = crypto_auth_hmacsha256_init(&state, prk, tagLength)
                if written > 0 {
                    _ = crypto_auth_hmacsha256_update(&state, output + written - tagLength, UInt64(tagLength))
                }
                _ = crypto_auth_hmacsha256_update(&state, infoPointer, infoLength)
                _ = crypto_auth_hmacsha256_update(&state, &counter, 1)
                _ = crypto_auth_hmacsha256_final(&state, output + written)
                withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
                written += tagLength
                counter &+= 1
            }
            sodium_memzero(prk, tagLength)
            blackHole(output.pointee)
        }
        withExtendedLifetime((ikmBuffer, saltBuffer, infoBuffer, prkBuffer, outputBuffer)) {}
    })

    // One pass over 64 KiB: small enough for a sample per operation.
    let password = fixtures.password
    let argonSalt = fixtures.salt
    let parameters = Argon2id.Parameters(iterations: 1, memoryKiB: 64)
    pair("Argon2id t=1 m=64KiB", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try Argon2id.deriveKey(password: password, salt: argonSalt, parameters: parameters, outputLength: 32))
        }
    }, direct: { benchmark in
        let passwordBuffer = CBuffer(copying: password)
        let saltBuffer = CBuffer(copying: argonSalt)
        let keyBuffer = CBuffer(count: 32)
        let (p, s, out) = (passwordBuffer.readOnly, saltBuffer.readOnly, keyBuffer.pointer)
        let passwordPointer = UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)
        let passwordLength = UInt64(passwordBuffer.count)
        try benchmark.measureLoop {
            let status = crypto_pwhash(out, 32, passwordPointer, passwordLength, s, 1, 64 * 1024, crypto_pwhash_ALG_ARGON2ID13)
            guard status == 0 else { throw DirectCallFailed(function: "crypto_pwhash") }
        }
        withExtendedLifetime((passwordBuffer, saltBuffer, keyBuffer)) {}
    })
}
