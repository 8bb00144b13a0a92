@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("KeyedAsyncLock: a body told whether it waited")
struct KeyedAsyncLockTests {
    @Test("a free key runs the body at once, told it did not wait; a held key calls whenItWaits before waiting", .timeLimit(.minutes(1)))
    func reportsWaiting() async throws {
        let lock = KeyedAsyncLock()
        let waits = Counter()
        #expect(await lock.withLock("k", whenItWaits: { waits.increment() }) { waited in waited } == false)
        #expect(waits.value == 0)
        // Another task holds the key until released.
        let holding = Signal()
        let release = Signal()
        let holder = Task {
            await lock.withLock("k") {
                holding.fire()
                await release.wait()
            }
        }
        await holding.wait()
        let waiter = Task { await lock.withLock("k", whenItWaits: { waits.increment() }) { waited in waited } }
        while waits.value == 0 { await Task.yield() }
        // Told before it waits, while the key is still held; another key is free meanwhile.
        #expect(await lock.withLock("other", whenItWaits: { waits.increment() }) { waited in waited } == false)
        release.fire()
        await holder.value
        #expect(await waiter.value == true)
        #expect(waits.value == 1)
    }
}
