import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The devices of users, from `GET /keys/{user}/bundles`: every bundle parsed and its signed
/// prekey signature verified (T2), every identity checked against its pin — pinned on first
/// use (an ``IdentityEvent/newDevice(userID:deviceID:)`` event), refused and recorded when it
/// differs (``IdentityEvent/identityChanged(userID:deviceID:)``; such a device gets nothing
/// until the user accepts the change). Answers are cached for `cacheLifetime`. This
/// device, which the server lists among its own user's bundles, is neither pinned nor announced
/// nor returned: it is never a recipient, and never news.
package actor DeviceDirectory: ListedIdentityProviding {
    private struct Entry {
        var devices: [RemoteDevice]
        var listed: [String: IdentityBlob]
        var fetchedAt: StoreTime
        /// Bundles that did not parse or verify.
        var refused = 0
        /// Who gets keys under the user's key, if the user has one (docs/spec/protocol.md §10.7).
        var resolution: UserKeyRule.Resolution = .noKey
    }

    private let api: any ChatServerAPI
    private let store: KeyStore
    private let events: EventBroadcaster
    private let cacheLifetime: Duration
    private let now: @Sendable () -> StoreTime
    private let localDeviceID: DeviceID?
    /// This device's user (its own devices are not judged as a contact's).
    private let localUserID: UserID?
    private var cache: [UserID: Entry] = [:]
    /// Judges each listing's certificates (text 1.3); `nil` leaves every user under text 1.2.
    private let userKeys: UserKeyDirectory?
    /// Per own device judged under our own key, whether it was linked at the last reading
    /// (`nil` until the first: that one is the baseline, surfaced by nothing).
    private var ownLinks: [String: Bool]?
    /// Told of the devices pinned for the first time by one listing (``whenDevicesAppear(_:)``).
    private var appeared: (@Sendable ([RemoteDevice]) -> Void)?

    /// A directory asking `api`, pinning in `store`, reporting on `events`; `localDeviceID` is
    /// this device (left out of every answer).
    public init(api: any ChatServerAPI, store: KeyStore, events: EventBroadcaster, cacheLifetime: Duration = .seconds(60),
                now: @escaping @Sendable () -> StoreTime = { .now() }, localDeviceID: DeviceID? = nil) {
        self.init(api: api, store: store, events: events, cacheLifetime: cacheLifetime, now: now, localDeviceID: localDeviceID, userKeys: nil)
    }

    /// A directory that also judges contacts' user keys with `userKeys` (docs/spec/protocol.md §10).
    init(api: any ChatServerAPI, store: KeyStore, events: EventBroadcaster, cacheLifetime: Duration, now: @escaping @Sendable () -> StoreTime,
         localDeviceID: DeviceID?, localUserID: UserID? = nil, userKeys: UserKeyDirectory?) {
        self.userKeys = userKeys
        self.localUserID = localUserID
        self.localDeviceID = localDeviceID
        self.api = api
        self.store = store
        self.events = events
        self.cacheLifetime = cacheLifetime
        self.now = now
    }

    /// The verified, trusted devices of `userID` (refetched when the cache is older than its
    /// lifetime or `refresh` is set).
    /// - Throws: ``ServerError`` when the server could not be asked.
    public func devices(of userID: UserID, refresh: Bool = false) async throws -> [RemoteDevice] {
        try await entry(for: userID, refresh: refresh).devices
    }

    /// The identity blob listed for every device of `userID`, trusted or not (docs/spec/protocol.md §2
    /// step 3 and §5 compare against these).
    /// - Throws: ``ServerError`` when the server could not be asked.
    public func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob] {
        try await entry(for: userID, refresh: refresh).listed
    }

    /// The trusted devices of `userID` for a send: like ``devices(of:refresh:)``, but a list
    /// holding any bundle that did not parse or verify is refused whole (nothing is sent to a
    /// list the core could not read, docs/spec/protocol.md §5).
    /// - Throws: ``MessagingError/unreadableDeviceList(userID:)``, ``ServerError``.
    public func recipientDevices(of userID: UserID, refresh: Bool = false) async throws -> [RemoteDevice] {
        try await recipientListing(of: userID, refresh: refresh).devices
    }

    /// The devices of `userID` that may receive keys, and whether the user's key decided them
    /// (docs/spec/protocol.md §10.7): for a user with a pinned key, exactly the linked devices —
    /// a record that does not verify is an unlinked device, skipped (it was surfaced); for a
    /// user without one, as ``recipientDevices(of:refresh:)``.
    /// - Throws: ``MessagingError/unreadableDeviceList(userID:)`` (users without a key),
    ///   ``MessagingError/userKeyConflict(userID:)``, ``MessagingError/noVerifiedDevice(userID:)``,
    ///   ``MessagingError/userKeyChangePending(userID:)``, ``ServerError``.
    func recipientListing(of userID: UserID, refresh: Bool) async throws -> (devices: [RemoteDevice], linked: Bool) {
        let entry = try await entry(for: userID, refresh: refresh)
        switch entry.resolution {
        case .noKey:
            guard entry.refused == 0 else { throw MessagingError.unreadableDeviceList(userID: userID) }
            return (entry.devices, false)
        case .linked(let linked):
            return (entry.devices.filter { linked.contains($0.deviceID.rawValue) }, true)
        case .unresolved(let reason):
            throw UnresolvedUser(userID: userID, reason: reason).error
        }
    }

    /// Who gets keys for `userID` under its user key, from the latest listing (read when none is cached).
    /// - Throws: ``ServerError`` when the server could not be asked.
    func userKeyResolution(of userID: UserID) async throws -> UserKeyRule.Resolution {
        try await entry(for: userID, refresh: false).resolution
    }

    /// Installs what runs when a listing pins devices never seen before, whatever asked for the
    /// listing (a send's comparison, a received message's sender check, a membership watch):
    /// the account holds them where their user already receives keys, so that a new device is
    /// pending from the moment it is discovered, not from the next send. `handler` is called
    /// after the listing is cached and must not wait on it (it runs inside the call that asked).
    func whenDevicesAppear(_ handler: @escaping @Sendable ([RemoteDevice]) -> Void) {
        appeared = handler
    }

    /// Forgets every cached answer (after a reconnect or a send failure).
    public func invalidate() {
        cache.removeAll()
    }

    private func entry(for userID: UserID, refresh: Bool) async throws -> Entry {
        let user = userID
        if !refresh, let cached = cache[user], now().microseconds - cached.fetchedAt.microseconds < cacheLifetime.microsecondCount {
            return cached
        }
        let bundles = try await api.bundles(userID: user)
        var devices: [RemoteDevice] = []
        var listed: [String: IdentityBlob] = [:]
        var refused = 0
        var certificates: [ListedCertificate] = []
        var firstSeen: [RemoteDevice] = []
        // Devices of a user met for the first time are pinned quietly: a new login meets every
        // contact at once, and none of their devices is news ("a new device of alice" is).
        let time = now()
        let knewUser = try await store.read { [store] db in try store.remoteIdentityStore.knewUser(user.rawValue, before: time, db) }
        for json in bundles {
            guard let device = try await verify(json, userID: user) else {
                refused += 1
                certificates.append(ListedCertificate(deviceID: json.deviceID.rawValue, reading: .refused))
                continue
            }
            listed[device.deviceID.rawValue] = device.identity
            if device.deviceID == localDeviceID { continue }
            switch try await pin(device) {
            case .pinned:
                devices.append(device)
                firstSeen.append(device)
            case .matches: devices.append(device)
            case .changed, .changeAlreadyRecorded: continue
            }
            let reading = device.bundle.certificateReading(forUser: user)
            certificates.append(ListedCertificate(deviceID: device.deviceID.rawValue, reading: reading,
                                                  bytes: reading.key == nil ? nil : device.bundle.certificate.bytes))
        }
        var entry = Entry(devices: devices.sorted { $0.deviceID < $1.deviceID }, listed: listed, fetchedAt: now(), refused: refused)
        if let userKeys, user != localUserID {
            entry.resolution = try await userKeys.judge(userID: user, listing: certificates)
        } else if let userKeys, case .keyed(let outcome) = try await userKeys.judgeOwn(userID: user, listing: certificates) {
            // Our own devices under our own key (§10.7 for our own user): linked ones only.
            entry.resolution = .linked(outcome.linked)
            surfaceOwnChanges(outcome, listed: Set(certificates.map(\.deviceID)), userID: user)
        }
        // A keyed user's devices are news only as the key decides them (`linkedDeviceAdded`),
        // never held for approval: neither announced nor handed to the holds of text 1.2.
        guard entry.resolution == .noKey else {
            cache[user] = entry
            return entry
        }
        if knewUser {
            for device in firstSeen { events.publish(.identity(.newDevice(userID: device.userID, deviceID: device.deviceID))) }
        }
        cache[user] = entry
        if !firstSeen.isEmpty { appeared?(firstSeen) }
        return entry
    }

    /// Surfaces what changed among our own devices since the last reading under our key: one
    /// `linkedDeviceAdded` for a device that became linked, one `deviceUnlinked` for one that
    /// stopped being linked or was listed for the first time unlinked (an injected device, a
    /// removed one the server keeps listing).
    private func surfaceOwnChanges(_ outcome: OwnDeviceRule.Outcome, listed: Set<String>, userID: UserID) {
        let previous = ownLinks
        var now: [String: Bool] = [:]
        for device in listed { now[device] = outcome.linked.contains(device) }
        ownLinks = now
        // A legacy device whose 30 days ran out is surfaced once, when it lapses (the rule
        // forgets it as legacy at once), even on the first reading after a start.
        for device in outcome.lapsed.intersection(listed).sorted() {
            events.publish(.identity(.deviceUnlinked(userID: userID, deviceID: DeviceID(stored: device), reason: .legacy)))
        }
        guard let previous else { return }
        for (device, linked) in now.sorted(by: { $0.key < $1.key }) where previous[device] != linked && !outcome.lapsed.contains(device) {
            if linked {
                events.publish(.identity(.linkedDeviceAdded(userID: userID, deviceID: DeviceID(stored: device))))
            } else {
                events.publish(.identity(.deviceUnlinked(userID: userID, deviceID: DeviceID(stored: device), reason: outcome.unlinked[device] ?? .removed)))
            }
        }
        for (device, linked) in previous.sorted(by: { $0.key < $1.key }) where linked && now[device] == nil {
            events.publish(.identity(.deviceUnlinked(userID: userID, deviceID: DeviceID(stored: device), reason: .removed)))
        }
    }

    /// Parses and verifies one bundle; a bad one is reported and skipped.
    private func verify(_ json: DeviceBundle, userID: UserID) async throws -> RemoteDevice? {
        do {
            let bundle = try PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                          signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey)
            return RemoteDevice(userID: userID, deviceID: DeviceID(stored: bundle.deviceID.text), identity: bundle.identity, bundle: bundle)
        } catch {
            events.publish(.inputRefused(reason: "bundle of a device of user \(userID) refused: \(error)"))
            return nil
        }
    }

    /// Pins on first use and reports an identity that differs from its pin
    /// (``IdentityEvent/identityChanged(userID:deviceID:)``, reported once; the device is
    /// excluded until the user accepts the change). A device pinned now is announced by the
    /// caller once the listing is judged. Only `.pinned` and `.matches` may receive keys.
    private func pin(_ device: RemoteDevice) async throws -> IdentityRecordResult {
        let claim = RemoteIdentityClaim(userID: device.userID.rawValue, deviceID: device.deviceID.rawValue, identityBlob: device.identity.bytes)
        let check = try await store.recordIdentity(claim, at: now())
        if case .changed = check { events.publish(.identity(.identityChanged(userID: device.userID, deviceID: device.deviceID))) }
        return check
    }
}
