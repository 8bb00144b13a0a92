import Benchmark
import BenchmarkSupport
import E2EECrypto

/// Single ingredients of the wrappers, measured alone so a pair's gap can be attributed.
func registerCostBenchmarks(_ fixtures: Fixtures) {
    cost("timer floor") { benchmark in
        benchmark.measureLoop {}
    }

    // The output arrays of SHA-256 / signatures / random bytes and of AEAD seal.
    cost("[UInt8] 32 B zeroed allocation") { benchmark in
        benchmark.measureLoop { blackHole([UInt8](repeating: 0, count: 32)) }
    }
    cost("[UInt8] 1 KiB zeroed allocation") { benchmark in
        benchmark.measureLoop { blackHole([UInt8](repeating: 0, count: 1024 + 16)) }
    }

    // SecretBytes: a class instance plus a separate buffer, zeroed on creation and wiped with
    // sodium_memzero on release (HMAC, HKDF, X25519 and AEAD-open outputs).
    cost("SecretBytes 32 B") { benchmark in
        benchmark.measureLoop { blackHole(SecretBytes(count: 32) { _ in }) }
    }
    cost("SecretBytes 1 KiB") { benchmark in
        benchmark.measureLoop { blackHole(SecretBytes(count: 1024) { _ in }) }
    }

    // AES256GCM.seal/open call this on every operation.
    if AES256GCM.isAvailable {
        cost("AES-256-GCM availability check") { benchmark in
            try benchmark.measureLoop { try AES256GCM.requireAvailable() }
        }
    }
}
