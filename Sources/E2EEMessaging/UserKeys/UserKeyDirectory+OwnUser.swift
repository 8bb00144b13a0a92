import Foundation
@_spi(StoreInternals) import E2EEKeyStore

extension UserKeyDirectory {
    /// How our own listing is judged (docs/spec/protocol.md §10.7 for our own user, §10.25).
    enum OwnJudgement: Sendable, Equatable {
        /// This device holds our key (primary or linked): ``OwnDeviceRule`` decided.
        case keyed(OwnDeviceRule.Outcome)
        /// Text 1.2's holds and approvals decide (no key here, or an unlinked login, which
        /// sends nothing but link messages anyway).
        case unkeyed
    }

    /// Judges our own listing. On a primary or linked device, under our key: who of our devices
    /// gets keys. On a device without a key, the listing may end that: a verifying, current
    /// certificate of our user on an own device this device trusts (confirmed) makes it
    /// unlinked until a grant links it (``LinkEvent/linkingRequired``); one on a device it does
    /// not trust only tells the user once to link (``LinkEvent/linkSuggested``).
    /// - Throws: key store errors.
    func judgeOwn(userID: UserID, listing: [ListedCertificate]) async throws -> OwnJudgement {
        let now = systemSeconds()
        let user = userID.rawValue
        let state = try await store.read { [store] db in
            (record: try store.ownUserKeyStore.load(db), highest: try store.ownUserKeyStore.highestEpoch(db),
             legacy: try store.ownUserKeyStore.loadLegacyDevices(db),
             clock: UserKeyClock(now: now, readings: try store.contactKeyStore.loadClock(now: now, db),
                                 rolledBackAt: try store.contactKeyStore.lastRollback(db)))
        }
        if let record = state.record {
            guard record.role != .unlinked, let key = record.userKey else { return .unkeyed }
            let stored = max(record.epoch, state.highest)
            let outcome = OwnDeviceRule.decide(.init(userKey: key, storedEpoch: stored, listing: listing, legacy: state.legacy,
                                                     clock: state.clock))
            if !outcome.lapsed.isEmpty || outcome.highestEpoch > stored {
                try await store.write { [store] db in
                    // No longer legacy: surfaced once, by the caller, and never counted again.
                    try store.ownUserKeyStore.removeLegacyDevices(Array(outcome.lapsed), db)
                    try store.ownUserKeyStore.raiseHighestEpoch(to: outcome.highestEpoch, db)
                }
            }
            return .keyed(outcome)
        }
        let certified = Set(listing.compactMap { device -> String? in
            guard case .certificate(_, _, let notAfter) = device.reading, state.clock.isCurrent(notAfter: notAfter) else { return nil }
            return device.deviceID
        })
        // Decided on a read: once told, a device without a key reads this listing at every send.
        guard !certified.isEmpty,
              try await store.read({ [store] db in try store.ownLinkNoticeDue(certified: certified, userID: user, db) }) != nil
        else { return .unkeyed }
        let notice = try await store.write { [store] db -> LinkEvent? in
            // Decided again in the write: another reading may have acted meanwhile.
            switch try store.ownLinkNoticeDue(certified: certified, userID: user, db) {
            case .linkingRequired?:
                try store.ownUserKeyStore.store(OwnUserKeyRecord(role: .unlinked, userKey: nil, primaryDeviceID: nil, certificate: nil, fileID: nil,
                                                                 epoch: 0, logCount: 0, trustCounter: 0, createdAt: now), db)
                return .linkingRequired
            case .linkSuggested?:
                try store.ownUserKeyStore.markLinkSuggested(at: now, db)
                return .linkSuggested
            default:
                return nil
            }
        }
        if let notice { events.publish(.linking(notice)) }
        return .unkeyed
    }
}
