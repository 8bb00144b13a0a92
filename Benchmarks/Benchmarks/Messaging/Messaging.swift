import Benchmark

// The sending side of issue 6, end to end against the development server in this process over
// loopback (real HTTP, real SQLite stores in memory):
// - "DM send to 10 devices": one sample = `Account.send` + `waitForOutbox`: ten pairwise
//   encryptions of the message key, the DM envelope, the outbox transaction, and the POST.
//   Sessions exist already (a warm-up message in setup).
// - "Group send with SKD to 50 devices": one sample = the first message in a fresh group of
//   50 other devices: a new sender key, its distribution over 50 pairwise sessions (one SKD
//   envelope), the group message, two outbox transactions and two POSTs. Groups and sessions are
//   made in setup.
// - "Group send, key already distributed": one sample = a later message in such a group (sign,
//   encrypt, one transaction, one POST), for comparison.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(30),
        maxIterations: 200
    )
    registerDirectMessageBenchmark()
    registerGroupBenchmarks()
}
