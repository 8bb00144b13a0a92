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
    }

    private let api: any ChatServerAPI
    private let store: KeyStore
    private let events: EventBroadcaster
    private let cacheLifetime: Duration
    private let now: @Sendable () -> StoreTime
    private let localDeviceID: DeviceID?
    private var cache: [UserID: Entry] = [:]
    /// Told of the devices pinned for the first time by one listing (``whenDevicesAppear(_:)``).
    private var appeared: (@Sendable ([RemoteDevice]) -> Void)?

    /// A directory asking `api`, pinning in `store`, reporting on `events`; `localDeviceID` is
    /// this device (left out of every answer).
    public init(api: any ChatServerAPI, store: KeyStore, events: EventBroadcaster, cacheLifetime: Duration = .seconds(60),
                now: @escaping @Sendable () -> StoreTime = { .now() }, localDeviceID: DeviceID? = nil) {
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
        let entry = try await entry(for: userID, refresh: refresh)
        guard entry.refused == 0 else { throw MessagingError.unreadableDeviceList(userID: userID) }
        return entry.devices
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
        var firstSeen: [RemoteDevice] = []
        // Devices of a user met for the first time are pinned quietly: a new login meets every
        // contact at once, and none of their devices is news ("a new device of alice" is).
        let time = now()
        let knewUser = try await store.read { [store] db in try store.remoteIdentityStore.knewUser(user.rawValue, before: time, db) }
        for json in bundles {
            guard let device = try await verify(json, userID: user) else {
                refused += 1
                continue
            }
            listed[device.deviceID.rawValue] = device.identity
            if device.deviceID == localDeviceID { continue }
            switch try await pin(device, announce: knewUser) {
            case .pinned:
                devices.append(device)
                firstSeen.append(device)
            case .matches: devices.append(device)
            case .changed, .changeAlreadyRecorded: continue
            }
        }
        let entry = Entry(devices: devices.sorted { $0.deviceID < $1.deviceID }, listed: listed, fetchedAt: now(), refused: refused)
        cache[user] = entry
        if !firstSeen.isEmpty { appeared?(firstSeen) }
        return entry
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

    /// Pins on first use and reports what is news: a device pinned now for a user met before
    /// (`announce`; ``IdentityEvent/newDevice(userID:deviceID:)``)
    /// or an identity that differs from its pin (``IdentityEvent/identityChanged(userID:deviceID:)``,
    /// reported once; the device is excluded until the user accepts the change). Only `.pinned`
    /// and `.matches` may receive keys.
    private func pin(_ device: RemoteDevice, announce: Bool) async throws -> IdentityRecordResult {
        let claim = RemoteIdentityClaim(userID: device.userID.rawValue, deviceID: device.deviceID.rawValue, identityBlob: device.identity.bytes)
        let check = try await store.recordIdentity(claim, at: now())
        switch check {
        case .pinned where announce: events.publish(.identity(.newDevice(userID: device.userID, deviceID: device.deviceID)))
        case .pinned: break
        case .changed: events.publish(.identity(.identityChanged(userID: device.userID, deviceID: device.deviceID)))
        case .matches, .changeAlreadyRecorded: break
        }
        return check
    }
}
