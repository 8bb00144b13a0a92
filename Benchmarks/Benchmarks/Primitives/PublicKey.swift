import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// Ed25519 signing and verifying 1 KiB, and one X25519 agreement. Tens of microseconds each,
/// so every sample is one operation.
func registerPublicKeyBenchmarks(_ fixtures: Fixtures) {
    let message = fixtures.message
    let length = UInt64(message.count)
    let signingKey = fixtures.signingKey
    let publicKey = signingKey.publicKey
    let signature = signingKey.signature(for: message)

    pair("Ed25519 sign", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(signingKey.signature(for: message)) }
    }, direct: { benchmark in
        // libsodium's 64-byte secret key is seed || public key.
        let input = CBuffer(copying: message)
        let secretKey = CBuffer(count: Int(crypto_sign_SECRETKEYBYTES))
        let publicKeyBuffer = CBuffer(count: Ed25519.publicKeyLength)
        signingKey.seed.withUnsafeBytes { seed in
            if let base = seed.baseAddress {
                _ = crypto_sign_seed_keypair(publicKeyBuffer.pointer, secretKey.pointer, base.assumingMemoryBound(to: UInt8.self))
            }
        }
        let output = CBuffer(count: Ed25519.signatureLength)
        let (m, sk, out) = (input.readOnly, secretKey.readOnly, output.pointer)
        benchmark.measureLoop { blackHole(crypto_sign_detached(out, nil, m, length, sk)) }
        withExtendedLifetime((input, secretKey, publicKeyBuffer, output)) {}
    })

    pair("Ed25519 verify", wrapper: { benchmark in
        try benchmark.measureLoop { try publicKey.verify(signature, for: message) }
    }, direct: { benchmark in
        let input = CBuffer(copying: message)
        let signatureBuffer = CBuffer(copying: signature)
        let publicKeyBuffer = CBuffer(copying: publicKey.rawRepresentation)
        let (m, sig, pk) = (input.readOnly, signatureBuffer.readOnly, publicKeyBuffer.readOnly)
        try benchmark.measureLoop {
            guard crypto_sign_verify_detached(sig, m, length, pk) == 0 else {
                throw DirectCallFailed(function: "crypto_sign_verify_detached")
            }
        }
        withExtendedLifetime((input, signatureBuffer, publicKeyBuffer)) {}
    })

    // The wrapper refuses an all-zero result (low-order peer key); the direct version makes the
    // same sodium_is_zero check so that both do the work the protocol needs.
    let agreementKey = fixtures.agreementKey
    let peer = fixtures.peerKey.publicKey
    pair("X25519 DH", wrapper: { benchmark in
        try benchmark.measureLoop { blackHole(try agreementKey.sharedSecret(with: peer)) }
    }, direct: { benchmark in
        let scalar = CBuffer(copying: agreementKey.rawRepresentation)
        let point = CBuffer(copying: peer.rawRepresentation)
        let shared = CBuffer(count: X25519.keyLength)
        let (n, p, out) = (scalar.readOnly, point.readOnly, shared.pointer)
        let count = X25519.keyLength
        try benchmark.measureLoop {
            guard crypto_scalarmult(out, n, p) == 0, sodium_is_zero(out, count) == 0 else {
                throw DirectCallFailed(function: "crypto_scalarmult")
            }
        }
        withExtendedLifetime((scalar, point, shared)) {}
    })
}
