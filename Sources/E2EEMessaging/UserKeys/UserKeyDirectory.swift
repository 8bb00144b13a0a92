import Foundation
@_spi(StoreInternals) import E2EEKeyStore

/// Judges contacts' listings under text 1.3 (docs/spec/protocol.md §10): loads what this device
/// stored about a user's keys, applies ``UserKeyRule`` to a fresh listing, stores the outcome —
/// standing, keys, device links, clock mark — in one transaction, and publishes what it
/// surfaced. ``DeviceDirectory`` calls it for every listing it reads.
struct UserKeyDirectory: Sendable {
    let store: KeyStore
    let events: EventBroadcaster
    /// The system clock in unix seconds (never a server's time, §10.19).
    let systemSeconds: @Sendable () -> Int64
    /// Keeps `clockSuspect` to once per agreed reading, shared with ``ClockWatch``.
    let suspectLatch: ClockSuspectLatch

    /// Judges `listing` for `userID` and returns who, if anyone, gets keys.
    /// - Throws: key store errors.
    func judge(userID: UserID, listing: [ListedCertificate]) async throws -> UserKeyRule.Resolution {
        let now = systemSeconds()
        let user = userID.rawValue
        let (outcome, wentBack, agreedReading) = try await store.write { [store] db in
            let contacts = store.contactKeyStore
            var readings = try contacts.loadClock(now: now, db)
            let wentBack = Self.advance(&readings, now: now)
            try contacts.storeClock(readings, db)
            let clock = UserKeyClock(now: now, readings: readings, rolledBackAt: try contacts.lastRollback(db))
            let input = UserKeyRule.Input(userID: user, listing: listing, standing: try contacts.loadStanding(userID: user, db),
                                          keys: try contacts.loadKeys(userID: user, db), links: try contacts.loadLinks(userID: user, db),
                                          trusted: try contacts.trustedDevices(userID: user, db), clock: clock)
            let outcome = UserKeyRule.decide(input)
            if let standing = outcome.standing { try contacts.storeStanding(standing, db) }
            // After a skipped transfer (§11.1) a standing first decided here is provisional.
            if input.standing == nil, outcome.standing != nil { try KeyStore.markProvisionalIfSkipped(userID: user, nowSeconds: now, db) }
            try contacts.replaceKeys(userID: user, with: outcome.keys, db)
            try contacts.storeLinks(outcome.links, db)
            return (outcome, wentBack, readings.agreedReading)
        }
        if wentBack { events.publish(.clockWentBack) }
        for notice in outcome.notices {
            if notice == .clockSuspect, !suspectLatch.shouldSurface(agreedReading: agreedReading) { continue }
            publish(notice, userID: userID)
        }
        return outcome.resolution
    }

    /// Raises the mark to `now`; a reading more than a day below it sets the clock as gone back
    /// (returns true when that is news).
    static func advance(_ readings: inout ClockReadings, now: Int64) -> Bool {
        if now > readings.mark {
            readings.mark = now
            return false
        }
        guard readings.mark - now > UserKeyClock.day, !readings.wentBack else { return false }
        readings.wentBack = true
        return true
    }

    private func publish(_ notice: UserKeyRule.Notice, userID: UserID) {
        let event: AccountEvent
        switch notice {
        case .linkedDeviceAdded(let device): event = .identity(.linkedDeviceAdded(userID: userID, deviceID: DeviceID(stored: device)))
        case .deviceUnlinked(let device, let reason):
            event = .identity(.deviceUnlinked(userID: userID, deviceID: DeviceID(stored: device), reason: reason))
        case .userKeyAdopted(let key):
            guard let key = UserKey(publicKey: key) else { return }
            event = .identity(.userKeyAdopted(userID: userID, key: key))
        case .otherUserKeyListed(let key):
            guard let key = UserKey(publicKey: key) else { return }
            event = .identity(.otherUserKeyListed(userID: userID, key: key))
        case .userKeyChanged(let change, let lastSeen):
            event = .identity(.userKeyChanged(userID: userID, to: change.to.flatMap(UserKey.init(publicKey:)),
                                              lastSeen: Date(timeIntervalSince1970: TimeInterval(lastSeen)), vouched: change.vouched,
                                              wasVerified: change.wasVerified))
        case .userKeyConflict: event = .identity(.userKeyConflict(userID: userID))
        case .noVerifiedDevice: event = .identity(.noVerifiedDevice(userID: userID))
        case .invalidCertificate(let device): event = .identity(.invalidCertificate(userID: userID, deviceID: DeviceID(stored: device)))
        case .clockSuspect: event = .clockSuspect
        }
        events.publish(event)
    }
}
