import Benchmark
import BenchmarkSupport
import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Writing decryptions through the store's one receive write: batched (a catch-up's chunk) and
/// one per transaction.
func registerStoreBenchmarks() {
    let batched = Carried<TemporaryStore?>(nil)
    Benchmark("Store decryptions batch of 1000", closure: { benchmark async throws in
        guard let temporary = batched.value else { return }
        let store = try temporary.opened()
        let writes = Workload.batch(startingAt: temporary.count)
        benchmark.startMeasurement()
        _ = try await store.storeReceiveBatch(writes)
        benchmark.stopMeasurement()
        temporary.count += writes.count
    }, setup: {
        batched.value = try TemporaryStore()
    }, teardown: {
        batched.value?.remove()
        batched.value = nil
    })

    let single = Carried<TemporaryStore?>(nil)
    Benchmark("Store decryption one per transaction", configuration: .init(maxDuration: .seconds(10), maxIterations: 1_000), closure: { benchmark async throws in
        guard let temporary = single.value else { return }
        let store = try temporary.opened()
        let write = Workload.write(temporary.count)
        benchmark.startMeasurement()
        _ = try await store.storeReceiveBatch([write])
        benchmark.stopMeasurement()
        temporary.count += 1
    }, setup: {
        single.value = try TemporaryStore()
    }, teardown: {
        single.value?.remove()
        single.value = nil
    })
}

/// One ingredient of a stored decryption, to attribute the batched figure: sealing one ~100-byte
/// plaintext for its timeline cell (the store seals two values per group decryption, the
/// plaintext and the sender-key state).
func registerSealingCost() {
    let sealer = Sealer(key: StoreKey.random())
    let plaintext = SecretBytes(copying: Workload.text)
    Benchmark("Cost: seal 100 B", configuration: .init(timeUnits: .nanoseconds, warmupIterations: 100, maxDuration: .seconds(2), maxIterations: 100_000)) { benchmark in
        benchmark.startMeasurement()
        blackHole(try? sealer.seal(plaintext, table: "timeline", column: "plaintext", rowID: "5f0c8a9e-1d2b-4c3d-8e4f-5a6b7c8d9e0f"))
        benchmark.stopMeasurement()
    }
}
