@testable import E2EEDevServer
import Testing

extension DevServerTests {
    @Suite("DevServer timestamps")
    struct TimestampTests {
        @Test func formatsMicrosecondsAndDropsAZeroFraction() {
            #expect(Timestamp.format(0, suffix: .zulu) == "1970-01-01T00:00:00Z")
            #expect(Timestamp.format(1_780_000_000_000_000, suffix: .offset) == "2026-05-28T20:26:40+00:00")
            #expect(Timestamp.format(1_780_000_000_000_001, suffix: .zulu) == "2026-05-28T20:26:40.000001Z")
            #expect(Timestamp.format(951_782_400_500_000, suffix: .zulu) == "2000-02-29T00:00:00.500000Z")
        }

        @Test func parsesEveryFormTheServerWrites() {
            #expect(Timestamp.parse("2026-05-28T20:26:40Z") == 1_780_000_000_000_000)
            #expect(Timestamp.parse("2026-05-28T20:26:40+00:00") == 1_780_000_000_000_000)
            #expect(Timestamp.parse("2026-05-28T20:26:40.000001Z") == 1_780_000_000_000_001)
            #expect(Timestamp.parse("2026-05-28T20:26:40.5") == 1_780_000_000_500_000)
            #expect(Timestamp.parse("2026-05-28T22:26:40+02:00") == 1_780_000_000_000_000)
        }

        @Test func refusesMalformedTimes() {
            for text in ["", "yesterday", "2026-05-28", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                         "2026-05-28T20:26:40.1234567Z", "2026-05-28T20:26:40.Z", "2026-05-28T20:26:40 00:00",
                         "2026-05-28T24:00:00Z", "2026-05-28T20:26:40+0000"] {
                #expect(Timestamp.parse(text) == nil, "\(text)")
            }
        }

        @Test func roundTrips() {
            for micros: Int64 in [0, 1, 999_999, 1_780_000_000_123_456, 4_102_444_800_000_000] {
                #expect(Timestamp.parse(Timestamp.format(micros, suffix: .zulu)) == micros)
                #expect(Timestamp.parse(Timestamp.format(micros, suffix: .offset)) == micros)
            }
        }
    }
}
