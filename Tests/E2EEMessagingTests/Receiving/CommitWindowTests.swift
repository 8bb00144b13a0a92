@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive: the commit window's rule")
struct CommitWindowTests {
    private let start = ContinuousClock.now
    private let window = CommitWindow(maxRows: 5_000, maxWait: .milliseconds(50))

    @Test("rows wait until the oldest has waited the bound, counted from its hand-in")
    func waitsUntilTheOldestRowsBound() {
        #expect(window.decide(rows: 256, oldest: start, awaited: false, now: start) == .wait(until: start + .milliseconds(50)))
        #expect(window.decide(rows: 256, oldest: start, awaited: false, now: start + .milliseconds(49)) == .wait(until: start + .milliseconds(50)))
        #expect(window.decide(rows: 256, oldest: start, awaited: false, now: start + .milliseconds(50)) == .commitNow)
        #expect(window.decide(rows: 256, oldest: start, awaited: false, now: start + .seconds(3)) == .commitNow)
    }

    @Test("enough rows, or a waiter (a lone frame's commit, a lane that must see its rows), commit at once")
    func boundsAndWaitersCommitAtOnce() {
        #expect(window.decide(rows: 5_000, oldest: start, awaited: false, now: start) == .commitNow)
        #expect(window.decide(rows: 4_999, oldest: start, awaited: false, now: start) != .commitNow)
        #expect(window.decide(rows: 1, oldest: start, awaited: true, now: start) == .commitNow)
    }

    @Test("no window: rows commit as soon as the writer is free")
    func noWindow() {
        #expect(CommitWindow.none.decide(rows: 1, oldest: start, awaited: false, now: start) == .commitNow)
        #expect(CommitWindow(maxRows: 0, maxWait: .milliseconds(-5)) == CommitWindow(maxRows: 1, maxWait: .zero))
    }

    @Test("a transaction takes whole chunks up to the row bound, and always the first")
    func takesWholeChunksWithinTheBound() {
        #expect(window.take([256, 256, 256]) == 3)
        #expect(window.take(Array(repeating: 256, count: 30)) == 19)  // 19 × 256 = 4,864; a 20th would pass 5,000
        #expect(window.take([6_000, 10]) == 1)  // a chunk is never split
        #expect(window.take([4_000, 1_000, 1]) == 2)
        #expect(window.take([]) == 0)
    }

    @Test("the receive path's bounds are the documented ones")
    func standardBounds() {
        #expect(CommitWindow.standard.maxRows == 5_000)
        #expect(CommitWindow.standard.maxWait == .milliseconds(250))
    }
}
