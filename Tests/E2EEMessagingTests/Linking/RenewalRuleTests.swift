@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.12–§10.13 for the primary's own certificate, as a pure rule.
@Suite("Renewal rule")
struct RenewalRuleTests {
    private let now: Int64 = 1_800_000_000
    private let day: Int64 = 86_400

    private func clock(now: Int64? = nil, mark: Int64? = nil, wentBack: Bool = false, suspect: Bool = false) -> UserKeyClock {
        let reading = now ?? self.now
        return UserKeyClock(now: reading, readings: ClockReadings(mark: mark ?? reading, agreedReading: reading, wentBack: wentBack, suspect: suspect))
    }

    private func decide(left days: Int64?, epoch: UInt32 = 1, fileEpoch: UInt32 = 1, listed: Bool? = true, clock: UserKeyClock? = nil,
                        stopped: OwnUserKeyRecord.IssuingStop? = nil) -> RenewalRule.Decision {
        let newest = days.map { RenewalRule.Logged(epoch: epoch, notAfter: UInt32(now + $0 * day)) }
        return RenewalRule.decide(.init(clock: clock ?? self.clock(), fileEpoch: fileEpoch, newest: newest, listed: listed, stopped: stopped))
    }

    @Test("a listed certificate with 23 days or more left is up to date; under 23 days it is renewed")
    func twentyThreeDays() {
        #expect(decide(left: 30) == .upToDate)
        #expect(decide(left: 23) == .upToDate)
        #expect(decide(left: 22) == .issue)
        #expect(decide(left: 1) == .issue)
    }

    @Test("none logged, expired, or below the file's epoch: issue")
    func notCurrent() {
        #expect(decide(left: nil) == .issue)
        #expect(decide(left: -1) == .issue)
        #expect(decide(left: 30, epoch: 1, fileEpoch: 2) == .issue)
        // Dated beyond 45 days is not current either.
        #expect(decide(left: 50) == .issue)
    }

    @Test("current but not listed: republished, never reissued (whatever the clock); an unread listing renews only when short")
    func notListed() {
        #expect(decide(left: 30, listed: false) == .republish)
        #expect(decide(left: 5, listed: false) == .republish)
        #expect(decide(left: 5, listed: false, clock: clock(suspect: true)) == .republish)
        #expect(decide(left: 30, listed: nil) == .upToDate)
        #expect(decide(left: 5, listed: nil) == .issue)
    }

    @Test("a due certificate is held while the clock went back or is suspect, and after issuing stopped")
    func holds() {
        #expect(decide(left: 5, clock: clock(wentBack: true)) == .held(.clockWentBack))
        #expect(decide(left: 5, clock: clock(suspect: true)) == .held(.clockSuspect))
        #expect(decide(left: nil, clock: clock(suspect: true)) == .held(.clockSuspect))
        #expect(decide(left: 5, stopped: .restoredFile) == .held(.stopped(.restoredFile)))
        // Nothing due: a suspect clock changes nothing.
        #expect(decide(left: 30, clock: clock(suspect: true)) == .upToDate)
    }

    @Test("the mark counts: a certificate past its end by the mark is not current even when the clock reads earlier")
    func markCounts() {
        let back = clock(now: now, mark: now + 40 * day, wentBack: true)
        #expect(decide(left: 30, clock: back) == .held(.clockWentBack))
        let confirmed = clock(now: now, mark: now)
        #expect(decide(left: 30, clock: confirmed) == .upToDate)
    }

    @Test("the warning comes under 7 days left, by the later of clock and mark")
    func warning() {
        #expect(RenewalRule.shouldWarn(notAfter: UInt32(now + 6 * day), clock: clock()))
        #expect(!RenewalRule.shouldWarn(notAfter: UInt32(now + 8 * day), clock: clock()))
        #expect(RenewalRule.shouldWarn(notAfter: UInt32(now + 8 * day), clock: clock(mark: now + 2 * day)))
    }
}
