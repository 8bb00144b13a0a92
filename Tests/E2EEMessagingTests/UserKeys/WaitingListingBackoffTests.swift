@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.8: a waiting user's listing is read again with a backoff from an
/// hour to a day, and from an hour again once nothing of theirs waits.
@Suite("Re-reading a waiting user's listing")
struct WaitingListingBackoffTests {
    private let start: Int64 = 1_800_000_000
    private let hour: Int64 = 3_600

    @Test("read at once, then after 1, 2, 4, … hours, never more than a day apart")
    func intervalsDouble() {
        var backoff = WaitingListingBackoff()
        #expect(backoff.due(among: ["bob"], now: start) == ["bob"])
        #expect(backoff.due(among: ["bob"], now: start + hour - 1).isEmpty, "not within the first hour")
        let at = start + hour
        #expect(backoff.due(among: ["bob"], now: at) == ["bob"])
        var reads: [Int64] = []
        var time = at
        while time < at + 10 * 86_400 {
            time += 60
            if !backoff.due(among: ["bob"], now: time).isEmpty { reads.append(time) }
        }
        let gaps = zip([at] + reads, reads).map { $1 - $0 }
        #expect(Array(gaps.prefix(5)) == [2, 4, 8, 16, 24].map { $0 * hour })
        #expect(gaps.dropFirst(4).allSatisfy { $0 == 86_400 }, "capped at a day: \\(gaps)")
        #expect(reads.count < 15, "ten days of waiting cost \\(reads.count) reads, not 240")
    }

    @Test("a user with nothing waiting any more starts again at an hour; users are timed apart")
    func resetsAndSeparates() {
        var backoff = WaitingListingBackoff()
        _ = backoff.due(among: ["bob"], now: start)
        _ = backoff.due(among: ["bob"], now: start + hour)
        #expect(backoff.due(among: ["bob", "carol"], now: start + hour + 60) == ["carol"], "Carol's first read is at once")
        #expect(backoff.due(among: ["carol"], now: start + 2 * hour).isEmpty, "Bob forgotten, Carol within her hour")
        #expect(backoff.due(among: ["bob"], now: start + 2 * hour) == ["bob"], "Bob waits again: read at once")
        #expect(backoff.due(among: ["bob"], now: start + 3 * hour) == ["bob"], "and an hour later, not two")
    }

    @Test("a clock set back below the last read does not stop the re-reads")
    func clockBack() {
        var backoff = WaitingListingBackoff()
        _ = backoff.due(among: ["bob"], now: start)
        #expect(backoff.due(among: ["bob"], now: start - 86_400) == ["bob"])
    }
}
