@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.19, §10.21: `clockSuspect` is news once per agreed reading.
@Suite("Surfacing a suspect clock")
struct ClockSuspectLatchTests {
    @Test("once per agreed reading; again once a post moves the agreed reading")
    func oncePerReading() {
        let latch = ClockSuspectLatch()
        #expect(latch.shouldSurface(agreedReading: nil))
        #expect(!latch.shouldSurface(agreedReading: nil))
        #expect(latch.shouldSurface(agreedReading: 1_800_000_000))
        #expect(!latch.shouldSurface(agreedReading: 1_800_000_000))
        #expect(latch.shouldSurface(agreedReading: 1_800_003_600))
    }
}
