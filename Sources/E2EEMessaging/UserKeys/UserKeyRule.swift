import E2EEKeyStore

/// The pure rule of docs/spec/protocol.md §10.4–§10.7 and §10.17 for one contact user: a fresh
/// listing's certificates against what this device stored, giving the user's key state, the
/// devices that are linked, and what to surface. No I/O: ``UserKeyDirectory`` loads the input,
/// stores the outcome in one transaction and publishes the notices.
enum UserKeyRule {
    /// At most this many keys a user was only listed under are remembered (the oldest forgotten).
    static let maximumListedKeys = 8

    /// Everything the rule looks at.
    struct Input: Sendable {
        /// The user.
        var userID: String
        /// The devices listed now, their identities already checked against their pins.
        var listing: [ListedCertificate]
        /// The stored standing; `nil` is a first contact (§10.5).
        var standing: ContactKeyStanding?
        /// Every stored key of the user.
        var keys: [ContactKey]
        /// The stored link of each device of the user, by device id.
        var links: [String: DeviceLink]
        /// The listed devices this device trusts for the user without a key (trusted on first
        /// use or approved, held and declined nowhere): only they can cause an adoption (§10.6).
        var trusted: Set<String>
        /// The clock.
        var clock: UserKeyClock
    }

    /// Who, if anyone, gets keys for the user.
    enum Resolution: Sendable, Equatable {
        /// The user has no key: text 1.2's holds and approvals decide.
        case noKey
        /// The user's pinned key links these devices; they alone are recipients and senders.
        case linked(Set<String>)
        /// Nothing is encrypted for the user.
        case unresolved(UnresolvedUserKey)
    }

    /// Something to surface once.
    enum Notice: Sendable, Equatable {
        /// A device became linked under the pinned key.
        case linkedDeviceAdded(deviceID: String)
        /// A device that was linked no longer is.
        case deviceUnlinked(deviceID: String, reason: DeviceUnlinkReason)
        /// A user without a key adopted one (§10.6).
        case userKeyAdopted(key: [UInt8])
        /// Another key is listed for a pinned user (not yet a due change).
        case otherUserKeyListed(key: [UInt8])
        /// A key change became due and waits for the app.
        case userKeyChanged(ContactKeyStanding.PendingChange, lastSeen: Int64)
        /// Current certificates under several keys: nothing pinned or adopted.
        case userKeyConflict
        /// The pinned key links no listed device.
        case noVerifiedDevice
        /// A listed record did not verify.
        case invalidCertificate(deviceID: String)
        /// A due change is held back because the clock is not agreed.
        case clockSuspect
    }

    /// What to store and surface.
    struct Outcome: Sendable {
        /// The new standing (`nil`: keep none stored, a first contact that settled nothing).
        var standing: ContactKeyStanding?
        /// Every key to keep for the user (replaces the stored set).
        var keys: [ContactKey]
        /// The devices' links to store.
        var links: [DeviceLink]
        /// Who gets keys.
        var resolution: Resolution
        /// Why each listed device is not linked (users with a pinned key only).
        var unlinked: [String: DeviceUnlinkReason] = [:]
        /// What to surface.
        var notices: [Notice] = []
    }

    /// Applies the rule.
    static func decide(_ input: Input) -> Outcome {
        var keys = KeyBook(input.keys, userID: input.userID)
        let current = currentCertificates(input)
        keys.record(current, now: input.clock.now)
        let currentKeys = Set(current.map(\.key))
        var outcome: Outcome
        switch input.standing?.state {
        case nil:
            outcome = firstContact(input, currentKeys: currentKeys, keys: &keys)
        case .none?:
            outcome = withoutKey(input, current: current, keys: &keys)
        case .conflicted?:
            outcome = Outcome(standing: input.standing, keys: [], links: [], resolution: .unresolved(.conflicted))
        case .pinned?:
            guard let standing = input.standing, let pinned = standing.pinnedKey else {
                outcome = Outcome(standing: input.standing, keys: [], links: [], resolution: .unresolved(.conflicted))
                break
            }
            outcome = underPinnedKey(input, standing: standing, pinned: pinned, currentKeys: currentKeys, keys: &keys)
        }
        if case .pinned? = outcome.standing?.state {} else {
            outcome.links = input.listing.map { link(for: $0, in: input, linked: false) }
        }
        outcome.keys = keys.trimmed()
        for entry in input.listing where entry.reading == .refused && outcome.standing?.state == .pinned {
            outcome.notices.append(.invalidCertificate(deviceID: entry.deviceID))
        }
        return outcome
    }

    // MARK: - States

    private static func firstContact(_ input: Input, currentKeys: Set<[UInt8]>, keys: inout KeyBook) -> Outcome {
        if currentKeys.count > 1 {
            return Outcome(standing: ContactKeyStanding(userID: input.userID, state: .conflicted), keys: [], links: [],
                           resolution: .unresolved(.conflicted), notices: [.userKeyConflict])
        }
        if let key = currentKeys.first {
            keys.pin(key)
            let standing = ContactKeyStanding(userID: input.userID, state: .pinned, pinnedKey: key)
            // Trust on first use of the key: the devices it links are met now, not news.
            return underPinnedKey(input, standing: standing, pinned: key, currentKeys: currentKeys, keys: &keys, quietly: true)
        }
        let certified = input.listing.contains { $0.reading.key != nil }
        if certified {
            // Certificates, none current: nothing is settled, nothing is sent.
            return Outcome(standing: nil, keys: [], links: [], resolution: .unresolved(.noVerifiedDevice), notices: [.noVerifiedDevice])
        }
        return Outcome(standing: ContactKeyStanding(userID: input.userID, state: .none), keys: [], links: [], resolution: .noKey)
    }

    private static func withoutKey(_ input: Input, current: [CurrentCertificate], keys: inout KeyBook) -> Outcome {
        let trustedListed = input.listing.filter { input.trusted.contains($0.deviceID) }
        let currentByDevice = Dictionary(current.map { ($0.deviceID, $0.key) }) { a, _ in a }
        let trustedKeys = Set(trustedListed.compactMap { currentByDevice[$0.deviceID] })
        if trustedKeys.count > 1 {
            let isNews = trustedKeys.contains { !keys.knewBefore($0) }
            return Outcome(standing: input.standing, keys: [], links: [], resolution: .noKey, notices: isNews ? [.userKeyConflict] : [])
        }
        let allCarry = !trustedListed.isEmpty && trustedListed.allSatisfy { currentByDevice[$0.deviceID] != nil }
        guard let key = trustedKeys.first, allCarry else {
            return Outcome(standing: input.standing, keys: [], links: [], resolution: .noKey)
        }
        keys.pin(key)
        let standing = ContactKeyStanding(userID: input.userID, state: .pinned, pinnedKey: key)
        var outcome = underPinnedKey(input, standing: standing, pinned: key, currentKeys: Set(current.map(\.key)), keys: &keys, quietly: true)
        outcome.notices.insert(.userKeyAdopted(key: key), at: 0)
        return outcome
    }

    private static func underPinnedKey(_ input: Input, standing: ContactKeyStanding, pinned: [UInt8], currentKeys: Set<[UInt8]>,
                                       keys: inout KeyBook, quietly: Bool = false) -> Outcome {
        var standing = standing
        let maxEpoch = keys.maxEpoch(of: pinned)
        var outcome = Outcome(standing: standing, keys: [], links: [], resolution: .noKey)
        var linked: Set<String> = []
        for entry in input.listing {
            let reason = unlinkReason(entry.reading, pinned: pinned, maxEpoch: maxEpoch, clock: input.clock)
            let wasLinked = input.links[entry.deviceID]?.linked ?? false
            if let reason {
                outcome.unlinked[entry.deviceID] = reason
                if wasLinked { outcome.notices.append(.deviceUnlinked(deviceID: entry.deviceID, reason: reason)) }
            } else {
                linked.insert(entry.deviceID)
                if !wasLinked && !quietly { outcome.notices.append(.linkedDeviceAdded(deviceID: entry.deviceID)) }
            }
            outcome.links.append(link(for: entry, in: input, linked: reason == nil))
        }
        let listedIDs = Set(input.listing.map(\.deviceID))
        for (deviceID, stored) in input.links.sorted(by: { $0.key < $1.key }) where stored.linked && !listedIDs.contains(deviceID) {
            var gone = stored
            gone.linked = false
            outcome.links.append(gone)
            outcome.notices.append(.deviceUnlinked(deviceID: deviceID, reason: .removed))
        }
        let otherKeys = currentKeys.subtracting([pinned])
        if standing.pendingChange == nil {
            let seenUntil = keys.seenUntil(of: pinned)
            if input.clock.keyChangeGateOpen(seenUntil: seenUntil) {
                if otherKeys.count > 1 {
                    keys.replace(pinned)
                    return Outcome(standing: ContactKeyStanding(userID: input.userID, state: .conflicted), keys: [], links: outcome.links,
                                   resolution: .unresolved(.conflicted), unlinked: outcome.unlinked, notices: outcome.notices + [.userKeyConflict])
                }
                let candidate: [UInt8]?? = otherKeys.first.map { .some($0) }
                    ?? (currentKeys.isEmpty && input.listing.contains { $0.reading == .none } ? .some(nil) : nil)
                if let candidate {
                    let vouched = candidate.map { key in
                        input.listing.contains { entry in
                            entry.reading.key == key && input.links[entry.deviceID].map { $0.linked && $0.key == pinned } == true
                        }
                    } ?? false
                    let change = ContactKeyStanding.PendingChange(to: candidate, dueAt: input.clock.readings.agreedReading ?? input.clock.now,
                                                                  vouched: vouched, wasVerified: keys.state(of: pinned) == .verified)
                    standing.pendingChange = change
                    outcome.notices.append(.userKeyChanged(change, lastSeen: keys.seenAt(of: pinned)))
                }
            } else if !otherKeys.isEmpty, input.clock.keyChangeGateOpenOnlyByReading(seenUntil: seenUntil) {
                outcome.notices.append(.clockSuspect)
            }
        }
        if standing.pendingChange == nil {
            let fresh = otherKeys.filter { !keys.knewBefore($0) }.sorted { $0.lexicographicallyPrecedes($1) }
            let dayPassed = standing.otherKeySurfacedAt.map { input.clock.now - $0 >= UserKeyClock.day } ?? true
            if !fresh.isEmpty, dayPassed {
                outcome.notices += fresh.map { .otherUserKeyListed(key: $0) }
                standing.otherKeySurfacedAt = input.clock.now
            }
        }
        outcome.standing = standing
        if linked.isEmpty {
            let hadLinked = input.links.values.contains { $0.linked }
            outcome.resolution = .unresolved(standing.pendingChange == nil ? .noVerifiedDevice : .changePending)
            if hadLinked || quietly { outcome.notices.append(.noVerifiedDevice) }
        } else {
            outcome.resolution = .linked(linked)
        }
        return outcome
    }

    // MARK: - Pieces

    /// A current certificate in the listing.
    struct CurrentCertificate: Sendable {
        var deviceID: String
        var key: [UInt8]
        var epoch: UInt32
        var notAfter: UInt32
    }

    private static func currentCertificates(_ input: Input) -> [CurrentCertificate] {
        input.listing.compactMap { entry in
            guard case .certificate(let key, let epoch, let notAfter) = entry.reading, input.clock.isCurrent(notAfter: notAfter) else { return nil }
            return CurrentCertificate(deviceID: entry.deviceID, key: key, epoch: epoch, notAfter: notAfter)
        }
    }

    private static func unlinkReason(_ reading: CertificateReading, pinned: [UInt8], maxEpoch: UInt32, clock: UserKeyClock) -> DeviceUnlinkReason? {
        switch reading {
        case .none: return .legacy
        case .unverified, .refused: return .invalid
        case .certificate(let key, let epoch, let notAfter):
            guard key == pinned else { return .replaced }
            guard clock.isCurrent(notAfter: notAfter) else { return .expired }
            return epoch < maxEpoch ? .removed : nil
        }
    }

    private static func link(for entry: ListedCertificate, in input: Input, linked: Bool) -> DeviceLink {
        var link = input.links[entry.deviceID] ?? DeviceLink(userID: input.userID, deviceID: entry.deviceID, key: nil, epoch: 0, notAfter: 0, linked: false)
        if case .certificate(let key, let epoch, let notAfter) = entry.reading {
            (link.key, link.epoch, link.notAfter, link.certificate) = (key, epoch, notAfter, entry.bytes)
        }
        link.linked = linked
        return link
    }
}
