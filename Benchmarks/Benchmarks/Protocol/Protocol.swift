import Benchmark
import BenchmarkSupport

// Each protocol operation is measured twice in the same run: through the public E2EECrypto API
// ("<operation> ours") and as exactly the libsodium calls that operation makes, on preallocated
// C buffers ("<operation> floor"). `protocol-floor.sh` pairs the two by name and prints our
// throughput as a share of the floor's.
//
// Every sample is one operation; state that an operation consumes (a ratchet or sender-key
// chain position) is prepared before `startMeasurement` or carried from the previous sample, so
// only the operation itself is timed.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 50,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 1_000_000
    )

    registerX3DHBenchmarks()
    registerRatchetBenchmarks()
    registerSenderKeyBenchmarks()
    Benchmark("Cost: timer floor") { benchmark in
        benchmark.measureLoop {}
    }
}

/// Registers "<operation> ours" and "<operation> floor". Each body does its setup, then calls
/// ``Benchmark/measureLoop(_:)``.
func floorPair(
    _ operation: String,
    ours: @escaping (Benchmark) throws -> Void,
    floor: @escaping (Benchmark) throws -> Void
) {
    Benchmark("\(operation) ours") { benchmark in try ours(benchmark) }
    Benchmark("\(operation) floor") { benchmark in try floor(benchmark) }
}

/// The 1 KiB plaintext every message benchmark sends (deterministic, so runs compare).
let message1KiB: [UInt8] = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

/// A fixed time, unix seconds.
let now: Int64 = 1_800_000_000
