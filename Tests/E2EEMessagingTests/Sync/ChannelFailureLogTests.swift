import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// Each channel's own backoff (docs/spec/sync.md guarantee 10).
@Suite("Channel failure log: per-channel backoff")
struct ChannelFailureLogTests {
    private let start = StoreTime(microseconds: 1_000_000_000)

    private func seconds(_ value: Int64) -> StoreTime { StoreTime(microseconds: start.microseconds + value * 1_000_000) }

    @Test("failures in a row double the channel's wait, up to the longest; catching up forgets them")
    func backoffDoublesAndResets() async {
        let log = ChannelFailureLog()
        var waits: [Int64] = []
        for _ in 0..<10 {
            let failure = await log.recordChannel("bad", reason: "server(500)", at: start, retryAfter: nil)
            waits.append(((failure.retryAt?.microseconds ?? 0) - start.microseconds) / 1_000_000)
        }
        #expect(waits == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600])
        #expect(await !log.isDue("bad", at: seconds(599)))
        #expect(await log.isDue("bad", at: seconds(600)))
        #expect(await log.isDue("other", at: start), "another channel is not held back")
        await log.clear("bad")
        let again = await log.recordChannel("bad", reason: "server(500)", at: start, retryAfter: nil)
        #expect(again.retryAt == seconds(5))
    }

    @Test("a 429's Retry-After is the shortest wait")
    func retryAfterIsHonoured() async {
        let log = ChannelFailureLog()
        let failure = await log.recordChannel("busy", reason: "rateLimited", at: start, retryAfter: 42)
        #expect(failure.retryAt == seconds(42))
    }

    @Test("postponed channels are due at their time and show as waiting, not as failures")
    func postponedChannels() async {
        let log = ChannelFailureLog()
        await log.postpone(["later"], until: seconds(30))
        #expect(await !log.isDue("later", at: seconds(29)))
        #expect(await log.isDue("later", at: seconds(30)))
        let waiting = await log.waiting()
        #expect(waiting.channels == ["later"])
        #expect(waiting.earliest == seconds(30))
        #expect(await log.all().isEmpty)
    }
}
