import Benchmark
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
