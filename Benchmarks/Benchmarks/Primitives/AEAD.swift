import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// AES-256-GCM and XChaCha20-Poly1305 sealing and opening 1 KiB with 32 bytes of associated data.
func registerAEADBenchmarks(_ fixtures: Fixtures) {
    if AES256GCM.isAvailable {
        registerAESGCM(fixtures)
    } else {
        print("AES-256-GCM is not available on this CPU (no hardware AES): its pairs are skipped.")
    }
    registerXChaCha(fixtures)
    registerIntoBufferPairs(fixtures)
}

/// The caller-buffer variants (`seal(…, into:)`, `open(…, into:)`): the same work as the direct
/// call, with no output allocation on either side.
private func registerIntoBufferPairs(_ fixtures: Fixtures) {
    let (message, aad, key) = (fixtures.message, fixtures.associatedData, fixtures.key)
    if AES256GCM.isAvailable {
        let nonce = fixtures.gcmNonce
        let sealed = (try? AES256GCM.seal(message, key: key, nonce: nonce, authenticating: aad)) ?? []
        intoBufferPair("AES-256-GCM seal into buffer", input: message, aad: aad, key: key, nonce: nonce,
                       outputCount: message.count + AES256GCM.tagLength,
                       wrapper: { try AES256GCM.seal($0, key: key, nonce: nonce, authenticating: $1, into: $2) },
                       direct: { crypto_aead_aes256gcm_encrypt($0.output, nil, $0.input, $0.inputLength, $0.aad, $0.aadLength, nil, $0.nonce, $0.key) })
        intoBufferPair("AES-256-GCM open into buffer", input: sealed, aad: aad, key: key, nonce: nonce,
                       outputCount: sealed.count - AES256GCM.tagLength,
                       wrapper: { try AES256GCM.open($0, key: key, nonce: nonce, authenticating: $1, into: $2) },
                       direct: { crypto_aead_aes256gcm_decrypt($0.output, nil, nil, $0.input, $0.inputLength, $0.aad, $0.aadLength, $0.nonce, $0.key) })
    }
    let nonce = fixtures.xchachaNonce
    let sealed = (try? XChaCha20Poly1305.seal(message, key: key, nonce: nonce, authenticating: aad)) ?? []
    intoBufferPair("XChaCha20-Poly1305 seal into buffer", input: message, aad: aad, key: key, nonce: nonce,
                   outputCount: message.count + XChaCha20Poly1305.tagLength,
                   wrapper: { try XChaCha20Poly1305.seal($0, key: key, nonce: nonce, authenticating: $1, into: $2) },
                   direct: { crypto_aead_xchacha20poly1305_ietf_encrypt($0.output, nil, $0.input, $0.inputLength, $0.aad, $0.aadLength, nil, $0.nonce, $0.key) })
    intoBufferPair("XChaCha20-Poly1305 open into buffer", input: sealed, aad: aad, key: key, nonce: nonce,
                   outputCount: sealed.count - XChaCha20Poly1305.tagLength,
                   wrapper: { try XChaCha20Poly1305.open($0, key: key, nonce: nonce, authenticating: $1, into: $2) },
                   direct: { crypto_aead_xchacha20poly1305_ietf_decrypt($0.output, nil, nil, $0.input, $0.inputLength, $0.aad, $0.aadLength, $0.nonce, $0.key) })
}

/// One caller-buffer pair: both sides read and write the same preallocated C buffers.
private func intoBufferPair(
    _ name: String, input: [UInt8], aad: [UInt8], key: SecretBytes, nonce: [UInt8], outputCount: Int,
    wrapper: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) throws -> Void,
    direct: @escaping (AEADBuffers) -> Int32
) {
    pair(name, wrapper: { benchmark in
        let buffers = AEADBuffers(message: input, aad: aad, key: key, nonce: nonce, outputCount: outputCount)
        let inputView = UnsafeRawBufferPointer(start: buffers.input, count: Int(buffers.inputLength))
        let aadView = UnsafeRawBufferPointer(start: buffers.aad, count: Int(buffers.aadLength))
        let output = UnsafeMutableRawBufferPointer(start: buffers.output, count: outputCount)
        try benchmark.measureLoop { try wrapper(inputView, aadView, output) }
        withExtendedLifetime(buffers) {}
    }, direct: { benchmark in
        let buffers = AEADBuffers(message: input, aad: aad, key: key, nonce: nonce, outputCount: outputCount)
        try benchmark.measureLoop {
            guard direct(buffers) == 0 else { throw DirectCallFailed(function: name) }
        }
        withExtendedLifetime(buffers) {}
    })
}

private func registerAESGCM(_ fixtures: Fixtures) {
    let (message, aad, key, nonce) = (fixtures.message, fixtures.associatedData, fixtures.key, fixtures.gcmNonce)
    let sealed = (try? AES256GCM.seal(message, key: key, nonce: nonce, authenticating: aad)) ?? []
    let tagLength = AES256GCM.tagLength

    pair("AES-256-GCM seal", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try AES256GCM.seal(message, key: key, nonce: nonce, authenticating: aad))
        }
    }, direct: { benchmark in
        let buffers = AEADBuffers(message: message, aad: aad, key: key, nonce: nonce, outputCount: message.count + tagLength)
        benchmark.measureLoop {
            blackHole(crypto_aead_aes256gcm_encrypt(
                buffers.output, nil, buffers.input, buffers.inputLength, buffers.aad, buffers.aadLength,
                nil, buffers.nonce, buffers.key
            ))
        }
        withExtendedLifetime(buffers) {}
    })

    pair("AES-256-GCM open", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try AES256GCM.open(sealed, key: key, nonce: nonce, authenticating: aad))
        }
    }, direct: { benchmark in
        let buffers = AEADBuffers(message: sealed, aad: aad, key: key, nonce: nonce, outputCount: sealed.count - tagLength)
        try benchmark.measureLoop {
            let status = crypto_aead_aes256gcm_decrypt(
                buffers.output, nil, nil, buffers.input, buffers.inputLength, buffers.aad, buffers.aadLength,
                buffers.nonce, buffers.key
            )
            guard status == 0 else { throw DirectCallFailed(function: "crypto_aead_aes256gcm_decrypt") }
        }
        withExtendedLifetime(buffers) {}
    })
}

private func registerXChaCha(_ fixtures: Fixtures) {
    let (message, aad, key, nonce) = (fixtures.message, fixtures.associatedData, fixtures.key, fixtures.xchachaNonce)
    let sealed = (try? XChaCha20Poly1305.seal(message, key: key, nonce: nonce, authenticating: aad)) ?? []
    let tagLength = XChaCha20Poly1305.tagLength

    pair("XChaCha20-Poly1305 seal", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try XChaCha20Poly1305.seal(message, key: key, nonce: nonce, authenticating: aad))
        }
    }, direct: { benchmark in
        let buffers = AEADBuffers(message: message, aad: aad, key: key, nonce: nonce, outputCount: message.count + tagLength)
        benchmark.measureLoop {
            blackHole(crypto_aead_xchacha20poly1305_ietf_encrypt(
                buffers.output, nil, buffers.input, buffers.inputLength, buffers.aad, buffers.aadLength,
                nil, buffers.nonce, buffers.key
            ))
        }
        withExtendedLifetime(buffers) {}
    })

    pair("XChaCha20-Poly1305 open", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, authenticating: aad))
        }
    }, direct: { benchmark in
        let buffers = AEADBuffers(message: sealed, aad: aad, key: key, nonce: nonce, outputCount: sealed.count - tagLength)
        try benchmark.measureLoop {
            let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
                buffers.output, nil, nil, buffers.input, buffers.inputLength, buffers.aad, buffers.aadLength,
                buffers.nonce, buffers.key
            )
            guard status == 0 else { throw DirectCallFailed(function: "crypto_aead_xchacha20poly1305_ietf_decrypt") }
        }
        withExtendedLifetime(buffers) {}
    })
}

/// Preallocated C buffers for one direct AEAD call.
private final class AEADBuffers {
    private let storage: [CBuffer]
    let input: UnsafePointer<UInt8>
    let inputLength: UInt64
    let aad: UnsafePointer<UInt8>
    let aadLength: UInt64
    let key: UnsafePointer<UInt8>
    let nonce: UnsafePointer<UInt8>
    let output: UnsafeMutablePointer<UInt8>

    init(message: [UInt8], aad: [UInt8], key: SecretBytes, nonce: [UInt8], outputCount: Int) {
        let buffers = [CBuffer(copying: message), CBuffer(copying: aad), CBuffer(copying: key),
                       CBuffer(copying: nonce), CBuffer(count: max(outputCount, 0))]
        storage = buffers
        input = buffers[0].readOnly
        inputLength = UInt64(message.count)
        self.aad = buffers[1].readOnly
        aadLength = UInt64(aad.count)
        self.key = buffers[2].readOnly
        self.nonce = buffers[3].readOnly
        output = buffers[4].pointer
    }
}
