import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

extension Account {
    /// Opens "link a device" on the primary (docs/spec/protocol.md §10.11): the first request a
    /// device of our user posts from now on is answered; the attempt's ``LinkAttempt/steps``
    /// show the request, ask for the new device's code, show this device's code, and end
    /// ``LinkStep/linked`` once the new device acknowledged its grant — or cancelled (a second
    /// request, a wrong code, ten idle minutes, the grant unconfirmed after 15 minutes).
    /// Once linked, the new device receives this device's trust decisions and the history
    /// `history` covers (docs/spec/protocol.md §11.7; the last 30 days by default).
    /// - Throws: ``MessagingError/notPrimary`` when this device does not hold the user key,
    ///   ``ServerError``, key store errors.
    public func openLinkStep(history: HistoryScope = .default) async throws -> LinkAttempt {
        let issuer = primaryIssuer
        guard let record = try await issuer.loadRecord(), record.role == .primary else { throw MessagingError.notPrimary }
        let channel = try await devicesChannelOrFail(create: true)
        let me = try linkSelf()
        let openedAt = configuration.userKeyClock()
        let (step, first) = PrimaryLinkStep.open(by: me, now: 0)
        return await runLink(.primary(step), first: first, channel: channel, openedAt: openedAt, history: history)
    }

    /// Starts "link to my other device" on a new device (docs/spec/protocol.md §10.11): asks
    /// every device of our user that lists a current certificate; the attempt's
    /// ``LinkAttempt/steps`` show this device's code to type into the primary, ask for the
    /// primary's code, and end ``LinkStep/linked`` once the grant is taken — this device is then
    /// linked under our user's key and republished with its certificate.
    /// - Throws: ``MessagingError/noPrimaryListed`` when no such device is listed,
    ///   ``ServerError``, key store errors.
    public func startLinking() async throws -> LinkAttempt {
        let now = configuration.userKeyClock()
        let own = try await otherCertifiedOwnDevices()
        guard !own.isEmpty else { throw MessagingError.noPrimaryListed }
        let channel = try await devicesChannelOrFail(create: true)
        let me = try linkSelf()
        let (attempt, first) = NewDeviceLinkAttempt.start(by: me, asking: try own.map { try WireUUID(text: $0.deviceID.rawValue) }, now: 0)
        return await runLink(.newDevice(attempt), first: first, channel: channel, openedAt: now)
    }

    /// At login (docs/spec/protocol.md §10.7 for our own user): when our own listing shows a
    /// current certificate of our user that verifies on another device, this login is
    /// unlinked — whatever its linking mode — until a grant links it. Best effort: a listing
    /// that cannot be read leaves the device as it is.
    func noticeLinkingAtLogin() async {
        let store = self.store
        do {
            guard try await store.read({ db in try store.ownUserKeyStore.load(db) }) == nil else { return }
        } catch {
            return
        }
        guard let certified = try? await otherCertifiedOwnDevices(), !certified.isEmpty else { return }
        let now = configuration.userKeyClock()
        let record = OwnUserKeyRecord(role: .unlinked, userKey: nil, primaryDeviceID: nil, certificate: nil, fileID: nil, epoch: 0,
                                      logCount: 0, trustCounter: 0, createdAt: now)
        try? await store.write { db in try store.ownUserKeyStore.store(record, db) }
    }

    /// The other devices of our user whose listed certificate verifies for them and is current on
    /// this device's clock (§10.4's ten minutes of grace), read afresh: who can answer a link
    /// request, and what makes a login unlinked.
    /// - Throws: ``ServerError``.
    private func otherCertifiedOwnDevices() async throws -> [RemoteDevice] {
        let now = configuration.userKeyClock()
        return try await directory.devices(of: userID, refresh: true).filter { device in
            device.deviceID != deviceID && (device.verifiedCertificate.map { LinkDriver.isCurrent(notAfter: $0.notAfter, now: now) } ?? false)
        }
    }

    private func devicesChannelOrFail(create: Bool) async throws -> ChannelID {
        guard let channel = try await devicesChannel(create: create) else { throw MessagingError.noPrimaryListed }
        return channel
    }

    /// This device as a ceremony knows itself.
    private func linkSelf() throws -> LinkSelf {
        let random = configuration.random
        return LinkSelf(userID: try WireUUID(text: userID.rawValue),
                        device: LinkParty(deviceID: try WireUUID(text: deviceID.rawValue), identity: device.identity.publicIdentity),
                        makeNonce: { SecretBytes.random(count: LinkPlaintext.nonceLength, using: random) },
                        makeID: { WireUUID.random(using: random) })
    }

    private func runLink(_ machine: LinkDriver.Machine, first: [LinkCeremonyAction], channel: ChannelID, openedAt: Int64,
                         history: HistoryScope = .none) async -> LinkAttempt {
        let (steps, continuation) = AsyncStream<LinkStep>.makeStream(bufferingPolicy: .unbounded)
        let context = LinkDriver.Context(account: self, store: store, issuer: primaryIssuer, ownUserID: userID, devicesChannel: channel,
                                         systemSeconds: configuration.userKeyClock, idleShift: configuration.linkIdleShift,
                                         history: history)
        let driver = LinkDriver(machine: machine, context: context, continuation: continuation, openedAt: openedAt)
        // Subscribed before the first message leaves, so no answer is missed.
        await driver.start(messages: linkMessages(), first: first)
        return LinkAttempt(steps: steps, driver: driver)
    }
}

extension WireUUID {
    /// A random id (16 bytes from `random`).
    static func random(using random: some RandomSource) -> WireUUID {
        guard let id = try? WireUUID(bytes: random.bytes(count: 16)) else { preconditionFailure("sixteen bytes always make an id") }
        return id
    }
}

extension Account {
    /// On the primary, once a device it linked is kept (§10.11 step 6): the user linked it with
    /// two typed codes, which is their confirmation that it is theirs — it is a known, confirmed
    /// own device from now on, approved wherever a channel held it, so our own messages reach it
    /// with no further question.
    func trustLinkedOwnDevice(_ deviceID: DeviceID) async {
        let store = self.store, user = userID.rawValue, device = deviceID.rawValue, time = configuration.now()
        try? await store.write { db in
            try store.recipientStore.storeKnownDevices([(userID: user, deviceID: device)], at: time, db)
            _ = try store.recipientStore.confirmKnownDevices([device], db)
            _ = try store.recipientStore.approveDevice(device, at: time, decidedAt: time.milliseconds, db)
        }
        broadcaster.recipientStandings.signal()
    }
}
