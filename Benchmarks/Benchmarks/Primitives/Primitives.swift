import Benchmark

// Each primitive is measured twice in the same run: through the E2EECrypto wrapper
// ("<primitive> wrapper") and through the same libsodium C calls made directly on preallocated
// buffers ("<primitive> direct"). `overhead.sh` pairs the two by name and prints the wrapper's
// overhead. "Cost: ..." benchmarks measure single ingredients of the wrappers (an allocation,
// a check) to explain the gaps.
//
// Every sample is one operation: short samples let many of them run uninterrupted on a shared,
// loaded machine, which keeps the minimum and low percentiles meaningful. The price is the
// timer's own cost in every sample, measured by "Cost: timer floor".
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 100,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 1_000_000
    )

    let fixtures = Fixtures()
    registerHashBenchmarks(fixtures)
    registerKeyDerivationBenchmarks(fixtures)
    registerAEADBenchmarks(fixtures)
    registerPublicKeyBenchmarks(fixtures)
    registerUtilityBenchmarks(fixtures)
    registerCostBenchmarks(fixtures)
}
