import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// Base64 encode and decode of 1 KiB, constant-time comparison of 1 KiB, 1 KiB of randomness.
func registerUtilityBenchmarks(_ fixtures: Fixtures) {
    let message = fixtures.message
    let encoded = Base64.encode(message)
    let encodedBytes = Array(encoded.utf8)
    let variant = sodium_base64_VARIANT_ORIGINAL

    pair("Base64 encode", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(Base64.encode(message)) }
    }, direct: { benchmark in
        let input = CBuffer(copying: message)
        let capacity = sodium_base64_encoded_len(message.count, variant)
        let output = CBuffer(count: capacity)
        let m = input.readOnly
        let out = UnsafeMutableRawPointer(output.pointer).assumingMemoryBound(to: CChar.self)
        let count = message.count
        benchmark.measureLoop { blackHole(sodium_bin2base64(out, capacity, m, count, variant)) }
        withExtendedLifetime((input, output)) {}
    })

    pair("Base64 decode", wrapper: { benchmark in
        try benchmark.measureLoop {
            blackHole(try Base64.decode(encoded, maxEncodedLength: encodedBytes.count))
        }
    }, direct: { benchmark in
        let input = CBuffer(copying: encodedBytes)
        let output = CBuffer(count: encodedBytes.count / 4 * 3)
        let text = UnsafeRawPointer(input.readOnly).assumingMemoryBound(to: CChar.self)
        let (textLength, out, capacity) = (encodedBytes.count, output.pointer, output.count)
        var decodedLength = 0
        try benchmark.measureLoop {
            guard sodium_base642bin(out, capacity, text, textLength, nil, &decodedLength, nil, variant) == 0 else {
                throw DirectCallFailed(function: "sodium_base642bin")
            }
        }
        withExtendedLifetime((input, output)) {}
    })

    // Equal contents: the worst case, every byte is read.
    let copy = fixtures.messageCopy
    pair("Constant-time compare", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(ConstantTime.equals(message, copy)) }
    }, direct: { benchmark in
        let (left, right) = (CBuffer(copying: message), CBuffer(copying: copy))
        let (a, b, count) = (left.readOnly, right.readOnly, message.count)
        benchmark.measureLoop { blackHole(sodium_memcmp(a, b, count)) }
        withExtendedLifetime((left, right)) {}
    })

    let random = SystemRandom()
    pair("Random", wrapper: { benchmark in
        benchmark.measureLoop { blackHole(random.bytes(count: Fixtures.inputLength)) }
    }, direct: { benchmark in
        let output = CBuffer(count: Fixtures.inputLength)
        let (out, count) = (output.pointer, output.count)
        benchmark.measureLoop {
            randombytes_buf(out, count)
            blackHole(out.pointee)
        }
        withExtendedLifetime(output) {}
    })
}
