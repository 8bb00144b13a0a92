import Benchmark
import BenchmarkSupport
@_spi(StoreInternals) import E2EEKeyStore

/// Opening a store of 100,000 messages and reading a timeline page from it.
func registerReadBenchmarks() {
    let forOpen = Carried<TemporaryStore?>(nil)
    Benchmark("Open store of 100000 messages", configuration: .init(maxDuration: .seconds(20), maxIterations: 200), closure: { benchmark async throws in
        guard let temporary = forOpen.value else { return }
        benchmark.startMeasurement()
        let store = try temporary.opened()
        blackHole(try await store.messageCount(channelID: "channel-0"))
        benchmark.stopMeasurement()
        try temporary.close()
    }, setup: {
        let temporary = try TemporaryStore()
        forOpen.value = temporary
        try await temporary.fill(to: Workload.messageCount)
        try temporary.close()
    }, teardown: {
        forOpen.value?.remove()
        forOpen.value = nil
    })

    let forPages = Carried<TemporaryStore?>(nil)
    let sample = Carried(0)
    Benchmark("Timeline page of 50", configuration: .init(maxDuration: .seconds(20), maxIterations: 2_000), closure: { benchmark async throws in
        guard let temporary = forPages.value else { return }
        let store = try temporary.opened()
        let i = sample.value
        sample.value += 1
        // A cursor somewhere past the first 1,000 messages, spread over the store; "zzzz" sorts
        // after every id at that time, so the page starts just below it.
        let position = 1_000 + (i * 7_919) % (Workload.messageCount - 1_000)
        let cursor = TimelineCursor(createdAt: Workload.time(position), messageID: "zzzz")
        benchmark.startMeasurement()
        let page = try await store.timelinePage(channelID: "channel-\(i % 3)", before: cursor, limit: 50)
        benchmark.stopMeasurement()
        guard page.count == 50 else { throw PageTooShort(count: page.count) }
    }, setup: {
        let temporary = try TemporaryStore()
        forPages.value = temporary
        try await temporary.fill(to: Workload.messageCount)
        try temporary.close()
    }, teardown: {
        forPages.value?.remove()
        forPages.value = nil
    })
}

/// A page came back shorter than asked (a bug in the workload).
struct PageTooShort: Error {
    let count: Int
}
