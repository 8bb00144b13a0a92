import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.4–§10.7 and §10.17 as a pure rule: first contact, adoption, linked and
/// unlinked devices, the key-change gate and what is surfaced.
@Suite("User key rule")
struct UserKeyRuleTests {
    private let user = "u-bob"
    private let k1 = [UInt8](repeating: 1, count: 32), k2 = [UInt8](repeating: 2, count: 32), k3 = [UInt8](repeating: 3, count: 32)
    private let now: Int64 = 1_800_000_000
    private var inTwentyDays: UInt32 { UInt32(now + 20 * 86_400) }

    private func clock(now: Int64? = nil, agreed: Int64? = nil, mark: Int64? = nil, wentBack: Bool = false, suspect: Bool = false) -> UserKeyClock {
        let reading = now ?? self.now
        return UserKeyClock(now: reading, readings: ClockReadings(mark: mark ?? reading, agreedReading: agreed ?? reading, wentBack: wentBack, suspect: suspect))
    }

    private func cert(_ key: [UInt8], epoch: UInt32 = 1, notAfter: UInt32? = nil) -> CertificateReading {
        .certificate(key: key, epoch: epoch, notAfter: notAfter ?? inTwentyDays)
    }

    private func input(_ listing: [(String, CertificateReading)], standing: ContactKeyStanding? = nil, keys: [ContactKey] = [],
                       links: [DeviceLink] = [], trusted: Set<String> = [], clock: UserKeyClock? = nil) -> UserKeyRule.Input {
        UserKeyRule.Input(userID: user, listing: listing.map { ListedCertificate(deviceID: $0.0, reading: $0.1) }, standing: standing, keys: keys,
                          links: Dictionary(uniqueKeysWithValues: links.map { ($0.deviceID, $0) }), trusted: trusted, clock: clock ?? self.clock())
    }

    private func pinned(_ key: [UInt8], change: ContactKeyStanding.PendingChange? = nil) -> ContactKeyStanding {
        ContactKeyStanding(userID: user, state: .pinned, pinnedKey: key, pendingChange: change)
    }

    private func stored(_ key: [UInt8], _ state: ContactKey.State = .pinned, epoch: UInt32 = 1, seenUntil: UInt32? = nil) -> ContactKey {
        ContactKey(userID: user, key: key, state: state, maxEpoch: epoch, seenUntil: seenUntil ?? inTwentyDays, seenAt: now - 100, firstListedAt: now - 1_000)
    }

    private func link(_ device: String, _ key: [UInt8]?, epoch: UInt32 = 1, linked: Bool = true) -> DeviceLink {
        DeviceLink(userID: user, deviceID: device, key: key, epoch: epoch, notAfter: inTwentyDays, linked: linked)
    }

    // MARK: First contact (§10.5)

    @Test("first contact under one key pins it with E_max and links its devices quietly")
    func firstContactPins() {
        let outcome = UserKeyRule.decide(input([("p", cert(k1, epoch: 3)), ("l", cert(k1, epoch: 3)), ("x", .none)]))
        #expect(outcome.standing == pinned(k1))
        #expect(outcome.resolution == .linked(["p", "l"]))
        #expect(outcome.unlinked == ["x": .legacy])
        #expect(outcome.keys.map(\.maxEpoch) == [3])
        #expect(outcome.keys.map(\.state) == [.pinned])
        #expect(outcome.notices.isEmpty)
    }

    @Test("first contact under two keys: conflicted, nothing pinned, surfaced")
    func firstContactConflicts() {
        let outcome = UserKeyRule.decide(input([("p", cert(k1)), ("t", cert(k2))]))
        #expect(outcome.standing?.state == .conflicted)
        #expect(outcome.resolution == .unresolved(.conflicted))
        #expect(outcome.notices == [.userKeyConflict])
        #expect(Set(outcome.keys.map(\.state)) == [.listed])
    }

    @Test("first contact with certificates none current: no verified device, nothing stored")
    func firstContactWithoutCurrentCertificate() {
        let expired = UInt32(now - 700)
        let outcome = UserKeyRule.decide(input([("p", cert(k1, notAfter: expired)), ("q", .none)]))
        #expect(outcome.standing == nil)
        #expect(outcome.resolution == .unresolved(.noVerifiedDevice))
        #expect(outcome.notices == [.noVerifiedDevice])
    }

    @Test("first contact with zero or unverified certificates only: no key, text 1.2")
    func firstContactWithoutKey() {
        let outcome = UserKeyRule.decide(input([("p", .none), ("q", .unverified)]))
        #expect(outcome.standing?.state == ContactKeyStanding.State.none)
        #expect(outcome.resolution == .noKey)
    }

    @Test("a certificate dated beyond 45 days or past its 600 s grace is not current")
    func currentness() {
        let far = UInt32(now + 46 * 86_400)
        #expect(UserKeyRule.decide(input([("p", cert(k1, notAfter: far))])).resolution == .unresolved(.noVerifiedDevice))
        let justPast = UInt32(now - 599)
        #expect(UserKeyRule.decide(input([("p", cert(k1, notAfter: justPast))])).resolution == .linked(["p"]))
        let past = UInt32(now - 601)
        #expect(UserKeyRule.decide(input([("p", cert(k1, notAfter: past))])).resolution == .unresolved(.noVerifiedDevice))
        // The mark counts too: a clock set back cannot make an expired certificate current.
        #expect(UserKeyRule.decide(input([("p", cert(k1, notAfter: justPast))], clock: clock(mark: now + 2 * 86_400))).resolution
                == .unresolved(.noVerifiedDevice))
    }

    // MARK: Pinned (§10.4, §10.7)

    @Test("under a pinned key: a new linked device is added once, every other device unlinked with its reason")
    func pinnedLinksAndUnlinks() {
        let listing: [(String, CertificateReading)] = [
            ("p", cert(k1, epoch: 2)), ("new", cert(k1, epoch: 2)), ("old", cert(k1, epoch: 1)), ("other", cert(k3, epoch: 2)),
            ("bad", .refused), ("forged", .unverified), ("zero", .none), ("late", cert(k1, epoch: 2, notAfter: UInt32(now - 601))),
        ]
        let outcome = UserKeyRule.decide(input(listing, standing: pinned(k1), keys: [stored(k1, epoch: 2)],
                                               links: [link("p", k1, epoch: 2), link("old", k1, epoch: 1), link("zero", k1, epoch: 2)]))
        #expect(outcome.resolution == .linked(["p", "new"]))
        #expect(outcome.unlinked == ["old": .removed, "other": .replaced, "bad": .invalid, "forged": .invalid, "zero": .legacy, "late": .expired])
        #expect(outcome.notices.contains(.linkedDeviceAdded(deviceID: "new")))
        #expect(outcome.notices.contains(.deviceUnlinked(deviceID: "old", reason: .removed)))
        #expect(outcome.notices.contains(.deviceUnlinked(deviceID: "zero", reason: .legacy)))
        #expect(outcome.notices.contains(.invalidCertificate(deviceID: "bad")))
        #expect(!outcome.notices.contains(.linkedDeviceAdded(deviceID: "p")))
        #expect(outcome.notices.contains(.otherUserKeyListed(key: k3)))
    }

    @Test("E_max never goes down: an old epoch replayed alone links nothing")
    func oldEpochReplayed() {
        let outcome = UserKeyRule.decide(input([("p", cert(k1, epoch: 1)), ("l", cert(k1, epoch: 1))], standing: pinned(k1),
                                               keys: [stored(k1, epoch: 2)], links: [link("p", k1, epoch: 2)]))
        #expect(outcome.resolution == .unresolved(.noVerifiedDevice))
        #expect(outcome.keys.first?.maxEpoch == 2)
        #expect(outcome.notices.contains(.noVerifiedDevice))
    }

    @Test("a linked device no longer listed is surfaced as removed")
    func vanishedLinkedDevice() {
        let outcome = UserKeyRule.decide(input([("p", cert(k1))], standing: pinned(k1), keys: [stored(k1)], links: [link("p", k1), link("l", k1)]))
        #expect(outcome.notices == [.deviceUnlinked(deviceID: "l", reason: .removed)])
        #expect(outcome.links.contains { $0.deviceID == "l" && !$0.linked })
    }

    // MARK: Adoption (§10.6)

    @Test("a user without a key adopts one when every trusted listed device carries it; untrusted devices cannot")
    func adoption() {
        let none = ContactKeyStanding(userID: user, state: .none)
        let partial = UserKeyRule.decide(input([("a", cert(k1)), ("b", .none)], standing: none, trusted: ["a", "b"]))
        #expect(partial.resolution == .noKey)
        let injected = UserKeyRule.decide(input([("a", .none), ("x", cert(k2))], standing: none, trusted: ["a"]))
        #expect(injected.resolution == .noKey)
        #expect(injected.notices.isEmpty)
        let adopted = UserKeyRule.decide(input([("a", cert(k1)), ("b", cert(k1)), ("x", cert(k2))], standing: none, trusted: ["a", "b"]))
        #expect(adopted.standing?.state == .pinned && adopted.standing?.pinnedKey == k1)
        #expect(adopted.notices.contains(.otherUserKeyListed(key: k2)))
        #expect(adopted.resolution == .linked(["a", "b"]))
        #expect(adopted.notices.first == .userKeyAdopted(key: k1))
        let split = UserKeyRule.decide(input([("a", cert(k1)), ("b", cert(k2))], standing: none, trusted: ["a", "b"]))
        #expect(split.resolution == .noKey)
        #expect(split.notices == [.userKeyConflict])
    }

    // MARK: Key change (§10.17)

    @Test("a key change is not offered before seen_until + 600 s, then once, with last seen and not vouched")
    func keyChangeGate() {
        let seenUntil = UInt32(now - 1_000)
        let early = UserKeyRule.decide(input([("t", cert(k2))], standing: pinned(k1), keys: [stored(k1, seenUntil: UInt32(now))],
                                             links: [link("p", k1)]))
        #expect(early.standing?.pendingChange == nil)
        #expect(early.resolution == .unresolved(.noVerifiedDevice))
        #expect(early.notices.contains(.otherUserKeyListed(key: k2)))
        let due = UserKeyRule.decide(input([("t", cert(k2))], standing: pinned(k1), keys: [stored(k1, seenUntil: seenUntil)], links: [link("p", k1)]))
        let change = ContactKeyStanding.PendingChange(to: k2, dueAt: now, vouched: false, wasVerified: false)
        #expect(due.standing?.pendingChange == change)
        #expect(due.resolution == .unresolved(.changePending))
        #expect(due.notices.contains(.userKeyChanged(change, lastSeen: now - 100)))
        let again = UserKeyRule.decide(input([("t", cert(k2))], standing: pinned(k1, change: change), keys: due.keys, links: due.links))
        #expect(!again.notices.contains { if case .userKeyChanged = $0 { return true } else { return false } })
    }

    @Test("a device last linked under K1 that now carries K2 vouches for the change")
    func vouchedChange() {
        let outcome = UserKeyRule.decide(input([("l", cert(k2))], standing: pinned(k1, change: nil), keys: [stored(k1, .verified, seenUntil: UInt32(now - 1_000))],
                                               links: [link("l", k1)]))
        #expect(outcome.standing?.pendingChange == .init(to: k2, dueAt: now, vouched: true, wasVerified: true))
    }

    @Test("no key: only zero certificates left after the gate offers no key, never vouched")
    func noKeyLeft() {
        let outcome = UserKeyRule.decide(input([("l", .none)], standing: pinned(k1), keys: [stored(k1, seenUntil: UInt32(now - 1_000))],
                                               links: [link("l", k1)]))
        #expect(outcome.standing?.pendingChange == .init(to: nil, dueAt: now, vouched: false, wasVerified: false))
    }

    @Test("the gate counts by the agreed reading, waits while the clock is suspect, gone back, or 30 days after a rollback")
    func gateClock() {
        let seenUntil = UInt32(now - 1_000)
        func change(_ clock: UserKeyClock) -> ContactKeyStanding.PendingChange? {
            UserKeyRule.decide(input([("t", cert(k2))], standing: pinned(k1), keys: [stored(k1, seenUntil: seenUntil)], clock: clock)).standing?.pendingChange
        }
        #expect(change(clock()) != nil)
        #expect(change(clock(agreed: now - 2_000)) == nil)
        #expect(change(clock(suspect: true)) == nil)
        #expect(change(clock(wentBack: true)) == nil)
        var rolledBack = clock()
        rolledBack.rolledBackAt = now - 10 * 86_400
        #expect(change(rolledBack) == nil)
        let ahead = UserKeyRule.decide(input([("t", cert(k2))], standing: pinned(k1), keys: [stored(k1, seenUntil: seenUntil - 86_400 * 2)],
                                             clock: clock(agreed: Int64(seenUntil) - 86_400 * 2)))
        #expect(ahead.notices.contains(.clockSuspect))
    }

    @Test("two other keys after the gate: conflicted")
    func twoOtherKeys() {
        let outcome = UserKeyRule.decide(input([("t", cert(k2)), ("s", cert(k3))], standing: pinned(k1), keys: [stored(k1, seenUntil: UInt32(now - 1_000))]))
        #expect(outcome.standing?.state == .conflicted)
        #expect(outcome.resolution == .unresolved(.conflicted))
        #expect(outcome.keys.first { $0.key == k1 }?.state == .replaced)
    }

    @Test("at most 8 listed-only keys are kept, the newest")
    func listedKeysBounded() {
        var keys = [stored(k1)]
        for byte in 10..<20 {
            keys.append(ContactKey(userID: user, key: [UInt8](repeating: UInt8(byte), count: 32), state: .listed, maxEpoch: 1, seenUntil: inTwentyDays,
                                   seenAt: now, firstListedAt: now - 100 + Int64(byte)))
        }
        let outcome = UserKeyRule.decide(input([("p", cert(k1))], standing: pinned(k1), keys: keys))
        #expect(outcome.keys.filter { $0.state == .listed }.count == 8)
        #expect(!outcome.keys.contains { $0.key == [UInt8](repeating: 10, count: 32) })
        #expect(outcome.keys.contains { $0.key == k1 })
    }
}
