import Benchmark
import BenchmarkSupport

/// Throughput: a batch of messages per sample, timed from the first send to the last decoded
/// event.
func registerDeliveryBenchmarks() {
    registerBatch("Delivery REST 1 sender x100", senders: 1, count: 100) { fixture in try await fixture.post(100) }
    registerBatch("Delivery REST 4 senders x100", senders: 4, count: 100) { fixture in try await fixture.post(100) }
    registerBatch("Delivery injected x1000", senders: 1, count: 1_000) { fixture in await fixture.inject(1_000) }
}

/// Latency: one message per sample.
func registerLatencyBenchmarks() {
    var latency = Benchmark.defaultConfiguration
    latency.warmupIterations = 20
    latency.maxIterations = 2_000
    registerBatch("Latency REST one message", senders: 1, count: 1, configuration: latency) { fixture in try await fixture.post(1) }
    registerBatch("Latency injected one event", senders: 1, count: 1, configuration: latency) { fixture in await fixture.inject(1) }
}

private func registerBatch(_ name: String, senders: Int, count: Int, configuration: Benchmark.Configuration? = nil,
                           _ send: @escaping @Sendable (DeliveryFixture) async throws -> Void) {
    let fixture = Carried<DeliveryFixture?>(nil)
    let closure: Benchmark.BenchmarkAsyncThrowingClosure = { benchmark in
        guard let current = fixture.value else { return }
        benchmark.startMeasurement()
        async let sent: Void = send(current)
        try await current.receive(count)
        try await sent
        benchmark.stopMeasurement()
    }
    Benchmark(name, configuration: configuration ?? Benchmark.defaultConfiguration, closure: closure, setup: {
        fixture.value = try await DeliveryFixture.start(senderCount: senders)
    }, teardown: {
        await fixture.value?.stop()
        fixture.value = nil
    })
}
