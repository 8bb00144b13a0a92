@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.7 for our own user (§10.25) as a pure rule: which of our own devices
/// get keys on a device that holds our user key.
@Suite("Own device rule")
struct OwnDeviceRuleTests {
    private let now: Int64 = 1_800_000_000
    private let day: Int64 = 86_400
    private let ours = [UInt8](repeating: 1, count: 32)
    private let theirs = [UInt8](repeating: 2, count: 32)

    private func decide(_ listing: [ListedCertificate], epoch: UInt32 = 1, legacy: [LegacyOwnDevice] = [], mark: Int64? = nil) -> OwnDeviceRule.Outcome {
        OwnDeviceRule.decide(.init(userKey: ours, storedEpoch: epoch, listing: listing, legacy: legacy,
                                   clock: UserKeyClock(now: now, readings: ClockReadings(mark: mark ?? now, agreedReading: now))))
    }

    private func certified(_ device: String, key: [UInt8]? = nil, epoch: UInt32 = 1, days: Int64 = 20) -> ListedCertificate {
        ListedCertificate(deviceID: device, reading: .certificate(key: key ?? ours, epoch: epoch, notAfter: UInt32(now + days * day)))
    }

    @Test("a current certificate under our key at the highest epoch links a device; anything else does not")
    func linkedOnlyUnderOurKey() {
        let outcome = decide([certified("a"), certified("b", key: theirs), ListedCertificate(deviceID: "c", reading: .none),
                              ListedCertificate(deviceID: "d", reading: .unverified), ListedCertificate(deviceID: "e", reading: .refused)])
        #expect(outcome.linked == ["a"])
        #expect(outcome.unlinked == ["b": .replaced, "c": .legacy, "d": .invalid, "e": .invalid])
    }

    @Test("a device below the highest epoch seen — ours or listed — is removed")
    func epochs() {
        let listed = decide([certified("p", epoch: 2), certified("d", epoch: 1)])
        #expect(listed.linked == ["p"] && listed.unlinked == ["d": .removed] && listed.highestEpoch == 2)
        let stored = decide([certified("d", epoch: 1)], epoch: 2)
        #expect(stored.linked.isEmpty && stored.unlinked == ["d": .removed])
        // Another key's epochs count for nothing.
        let foreign = decide([certified("x", key: theirs, epoch: 9), certified("l", epoch: 1)])
        #expect(foreign.linked == ["l"] && foreign.highestEpoch == 1)
    }

    @Test("an expired certificate unlinks, by the clock or by the mark")
    func expiry() {
        let expired = decide([certified("l", days: -1)])
        #expect(expired.unlinked == ["l": .expired])
        let byMark = decide([certified("l", days: 1)], mark: now + 2 * day)
        #expect(byMark.unlinked == ["l": .expired])
    }

    @Test("a legacy own device gets keys without a certificate until its 30 days run out")
    func legacyLapse() {
        let fresh = decide([ListedCertificate(deviceID: "l", reading: .none)], legacy: [LegacyOwnDevice(deviceID: "l", lapsesAt: now + day)])
        #expect(fresh.linked == ["l"] && fresh.lapsed.isEmpty)
        let lapsed = decide([ListedCertificate(deviceID: "l", reading: .none)], legacy: [LegacyOwnDevice(deviceID: "l", lapsesAt: now)])
        #expect(lapsed.linked.isEmpty && lapsed.unlinked == ["l": .legacy] && lapsed.lapsed == ["l"])
        // A legacy device that now carries another key is no longer a recipient.
        let replaced = decide([certified("l", key: theirs)], legacy: [LegacyOwnDevice(deviceID: "l", lapsesAt: now + day)])
        #expect(replaced.linked.isEmpty && replaced.unlinked == ["l": .replaced])
    }
}
