import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.19: the mark, a clock gone back, the agreed reading and a suspect
/// clock, from readings alone.
@Suite("Clock readings")
struct ClockReadingTests {
    private let now: Int64 = 1_800_000_000

    @Test("the mark rises with the clock; a reading over a day below it is a clock gone back, reported once")
    func markAndWentBack() {
        var readings = ClockReadings(mark: now)
        #expect(!UserKeyDirectory.advance(&readings, now: now + 10))
        #expect(readings.mark == now + 10)
        #expect(!UserKeyDirectory.advance(&readings, now: now - 3_600), "an hour back is within a day")
        #expect(!readings.wentBack)
        #expect(UserKeyDirectory.advance(&readings, now: now - 2 * 86_400))
        #expect(readings.wentBack && readings.mark == now + 10)
        #expect(!UserKeyDirectory.advance(&readings, now: now - 3 * 86_400), "reported once until confirmed")
    }

    @Test("a post dated within a day of the reading at its 201 agrees; one further off makes the clock suspect until one agrees")
    func agreedAndSuspect() {
        var readings = ClockReadings(mark: now)
        ClockWatch.apply(&readings, reading: now, serverSeconds: now - 120)
        #expect(readings.agreedReading == now && !readings.suspect && readings.latestPostReading == now)
        ClockWatch.apply(&readings, reading: now + 40 * 86_400, serverSeconds: now + 60)
        #expect(readings.suspect)
        #expect(readings.agreedReading == now, "a clock jumped ahead agrees with no post")
        ClockWatch.apply(&readings, reading: now + 200, serverSeconds: now + 100)
        #expect(!readings.suspect && readings.agreedReading == now + 200)
    }
}
