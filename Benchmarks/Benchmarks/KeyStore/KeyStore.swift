import Benchmark
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

// The key store's figures, on temporary files (removed in teardown):
// - "Store decryptions batch of 1000": one sample = one `storeReceiveBatch` of 1,000 group
//   decryptions into a store that grows sample by sample; 100 samples = 100,000 rows. Rows/s =
//   1,000 / the time of a sample (`keystore.sh` prints it).
// - "Store decryption one per transaction": one sample = one `storeReceiveBatch` of one write
//   (fsync per commit).
// - "Open store of 100000 messages": one sample = `KeyStore.open` (key check, migration check)
//   plus the first query (`messageCount`), on a store filled in setup; `close` is not timed.
// - "Timeline page of 50": one sample = `timelinePage(limit: 50)` at a pseudo-random cursor in a
//   store of 100,000 messages, plaintexts opened.
// Writes are built before `startMeasurement` (sealing happens inside the store, so it is timed).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(60),
        maxIterations: 100
    )
    registerStoreBenchmarks()
    registerReadBenchmarks()
    registerSealingCost()
}
