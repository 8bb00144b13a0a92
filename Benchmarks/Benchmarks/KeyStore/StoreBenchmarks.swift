import Benchmark
import BenchmarkSupport
import E2EEKeyStore

/// Writing decryptions: batched (the catch-up path) and one per transaction.
func registerStoreBenchmarks() {
    let batched = Carried<TemporaryStore?>(nil)
    Benchmark("Store decryptions batch of 1000", closure: { benchmark async throws in
        guard let temporary = batched.value else { return }
        let store = try temporary.opened()
        let commits = Workload.batch(startingAt: temporary.count)
        benchmark.startMeasurement()
        try await store.storeDecryptions(commits)
        benchmark.stopMeasurement()
        temporary.count += commits.count
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
        let commit = Workload.commit(temporary.count)
        benchmark.startMeasurement()
        try await store.storeDecryption(commit)
        benchmark.stopMeasurement()
        temporary.count += 1
    }, setup: {
        single.value = try TemporaryStore()
    }, teardown: {
        single.value?.remove()
        single.value = nil
    })
}
