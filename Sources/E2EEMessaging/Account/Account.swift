import E2EECrypto
import E2EEKeyStore
import Foundation

/// One account on one server: an app holds one per (server, user), each with its own store,
/// and any number can run at once. Register or log in (a new device each time, docs/spec/server-api.md), then
/// ``bootstrapKeys(oneTimePrekeys:)``; after that the account sends — DMs over pairwise
/// sessions to every device of both users, groups with a sender key distributed over those
/// sessions — through a durable outbox, and reports everything on ``events()``.
///
/// Every secret stays in the store (sealed) or in `SecretBytes`; events and errors carry ids
/// and public reasons only.
public actor Account {
    /// Our user id.
    public nonisolated let userID: UserID
    /// This device's id.
    public nonisolated let deviceID: DeviceID
    /// The account's store.
    package nonisolated let store: KeyStore
    /// Where events go.
    nonisolated let broadcaster: EventBroadcaster
    /// The server.
    nonisolated let api: any ChatServerAPI
    /// Devices of users, verified and pinned.
    package nonisolated let directory: DeviceDirectory
    let device: LocalDevice
    let configuration: AccountConfiguration
    let channelDirectory: ChannelDirectory
    let composer: OutgoingComposer
    /// Who receives keys (docs/spec/protocol.md §5).
    let recipientGate: RecipientGate
    let outbox: OutboxSender
    let keys: KeyMaintenance
    /// Locks around protocol state (shared by sending and receiving).
    nonisolated let locks: KeyedAsyncLock
    /// Incoming messages.
    let pipeline: ReceivePipeline
    /// The renewal of keys after a rollback, one at a time (docs/spec/protocol.md §3.12).
    nonisolated let rollbackRenewal = RollbackRenewal()
    /// The pre-send check, for the parts that encrypt without going through the account.
    nonisolated let sendPreparation = SendPreparation()
    /// Work the account starts on its own; ``shutdown()`` cancels it and waits for it.
    nonisolated let backgroundWork = BackgroundWork()
    /// Catch-up, socket events and the state they keep (cursors, failures, the send gate):
    /// built once with the account and kept for its life, so every caller — the connection,
    /// ``sync()``, the pre-send check — works on the same state. It reaches back to the account
    /// through ``SyncHost``, weakly.
    nonisolated let syncEngine: SyncEngine
    /// Per group, when a message from a user without a standing there last ran the member
    /// comparison (``compareStrangers(in:channel:)``): at most one such read per
    /// ``strangerComparisonInterval``, so a stranger the server does not list costs no more.
    var strangerComparisons: [ChannelID: ContinuousClock.Instant] = [:]
    /// Whether the connected primary's daily renewal (``startRenewalTimer()``) runs already.
    var renewalTimerStarted = false
    /// On a primary whose store is behind its file's trust counter, the transfers held before
    /// their manifest 1 until ``confirmTrustState()`` (docs/spec/protocol.md §11.3).
    var heldTransferStarts: [HeldTransferStart] = []
    /// When ``noticeOwnNewDevices()`` last read our own listing.
    var ownDevicesNoticedAt: ContinuousClock.Instant?
    /// Users read by ``user(id:)``, kept for the account's life.
    var usersByID: [UserID: ServerUser] = [:]
    /// When the listing of each user with messages waiting to be linked is read again
    /// (docs/spec/protocol.md §10.8).
    var waitingListingReads = WaitingListingBackoff()
    /// The realtime connection, once ``connect(using:policy:)`` ran.
    var supervisor: ConnectionSupervisor?
    /// Forwards connection states into the events.
    var stateForwarding: Task<Void, Never>?

    /// Registers a new user (and its first device) and opens its account over `store`. With
    /// ``AccountConfiguration/linking`` on, this device creates the user key and is its primary
    /// (``createUserKey()``; the certificate is published by ``bootstrapKeys(oneTimePrekeys:)``).
    /// - Throws: ``ServerError`` (409 taken, 403 closed…), ``MessagingError/storeBelongsToAnotherDevice``
    ///   when `store` already holds another device, with linking on what ``createUserKey()``
    ///   throws (the user is registered then: the key can be created later), key store errors.
    public static func register(username: String, password: String, deviceName: String, server: any ChatServerAPI, store: KeyStore,
                                configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account {
        try await requireFreshStore(store)
        let tokens = try await server.register(username: username, password: password, deviceName: deviceName)
        let account = try await make(userID: tokens.userID, deviceID: tokens.deviceID, server: server, store: store, configuration: configuration)
        try await account.createUserKeyAtRegistration()
        return account
    }

    /// Logs in (a new device of an existing user) and opens its account over `store`. When our
    /// own listing shows a current certificate of our user on another device, this login is
    /// *unlinked* (docs/spec/protocol.md §10.7): it sends nothing but link messages until it is
    /// linked (``startLinking()``; sends fail with ``MessagingError/linkingRequired``).
    /// - Throws: as ``register(username:password:deviceName:server:store:configuration:)``.
    public static func login(username: String, password: String, deviceName: String, server: any ChatServerAPI, store: KeyStore,
                             configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account {
        try await requireFreshStore(store)
        let tokens = try await server.login(username: username, password: password, deviceName: deviceName)
        let account = try await make(userID: tokens.userID, deviceID: tokens.deviceID, server: server, store: store, configuration: configuration)
        await account.noticeLinkingAtLogin()
        return account
    }

    /// Opens the account already in `store` (after a restart); `server` must use the tokens
    /// saved there. Sending resumes: entries a kill left mid-send are reconciled first.
    /// - Throws: ``MessagingError/noAccount``, key store errors.
    public static func open(server: any ChatServerAPI, store: KeyStore, configuration: AccountConfiguration = AccountConfiguration()) async throws -> Account {
        guard let account = try await store.loadAccount() else { throw MessagingError.noAccount }
        let opened = try await make(userID: UserID(account.userID), deviceID: DeviceID(account.deviceID), server: server, store: store, configuration: configuration)
        // Retention runs on open (and with every key maintenance): docs/spec/protocol.md §1, §2, §4.
        try await KeyRetention(store: store, now: configuration.now, device: try? WireUUID(text: opened.device.deviceID.rawValue)).run()
        try await opened.outbox.resumeAll()
        // A primary checks its file, carries out a removal left in progress and renews its own
        // and its kept devices' certificates at start-up (§10.13, §10.14); a failure (offline,
        // a damaged file) leaves it to the next catch-up, which records it. The outbox resumed
        // first: recerts queue behind what a kill left.
        try? await opened.renewOwnCertificateIfDue()
        // A linked device whose store is behind its listing takes the listed certificate (§10.13).
        await opened.adoptListedCertificate()
        // Link transfers resume where their last commit left them (§11.4).
        await opened.resumeTransfers()
        return opened
    }

    /// Refuses a store that already holds an account or identity keys.
    /// - Throws: ``MessagingError/storeBelongsToAnotherDevice``, key store errors.
    static func requireFreshStore(_ store: KeyStore) async throws {
        let account = try await store.loadAccount()
        let identity = try await store.loadIdentityKeyPair()
        if account != nil || identity != nil {
            throw MessagingError.storeBelongsToAnotherDevice
        }
    }

    private static func make(userID: UserID, deviceID: DeviceID, server: any ChatServerAPI, store: KeyStore,
                             configuration: AccountConfiguration) async throws -> Account {
        let identity: E2EECrypto.IdentityKeyPair
        if let stored = try await store.loadIdentityKeyPair() {
            identity = try StoredKeyConversions.identity(stored)
        } else {
            identity = E2EECrypto.IdentityKeyPair(using: configuration.random)
            try await store.storeIdentityKeyPair(StoredKeyConversions.record(identity, createdAt: configuration.now()))
        }
        let account = Account(device: LocalDevice(userID: userID, deviceID: deviceID, identity: identity),
                              server: server, store: store, configuration: configuration)
        await account.sendPreparation.install { [weak account] channelID in
            guard let account else { throw CancellationError() }
            try await account.prepareToSend(channelID: channelID)
        }
        // A recert opened from now on is adopted (subscribed before anything is received).
        await account.startRecertListener()
        // A device pinned for the first time is pending from its discovery on, not from the next send.
        await account.directory.whenDevicesAppear { [weak account] devices in
            guard let account else { return }
            account.backgroundWork.run { await account.holdDiscoveredDevices(devices) }
        }
        return account
    }

    init(device: LocalDevice, server: any ChatServerAPI, store: KeyStore, configuration: AccountConfiguration) {
        let random = AnyRandomSource(base: configuration.random)
        let events = EventBroadcaster(bufferLimit: configuration.eventBufferLimit)
        let locks = KeyedAsyncLock()
        let suspectLatch = ClockSuspectLatch()
        let userKeys = UserKeyDirectory(store: store, events: events, systemSeconds: configuration.userKeyClock, suspectLatch: suspectLatch)
        let directory = DeviceDirectory(api: server, store: store, events: events, cacheLifetime: configuration.deviceLifetime, now: configuration.now,
                                        localDeviceID: device.deviceID, localUserID: device.userID, userKeys: userKeys)
        let channels = ChannelDirectory(store: store, api: server, events: events, ownUserID: device.userID,
                                        memberLifetime: configuration.memberLifetime, now: configuration.now)
        self.userID = device.userID
        self.deviceID = device.deviceID
        self.store = store
        self.broadcaster = events
        self.api = server
        self.directory = directory
        self.device = device
        self.configuration = configuration
        self.channelDirectory = channels
        self.locks = locks
        let gate = RecipientGate(store: store, api: server, directory: directory, channels: channels, events: events, device: device,
                                 locks: locks, now: configuration.now)
        self.recipientGate = gate
        self.composer = OutgoingComposer(
            store: store, api: server, device: device,
            sessions: PairwiseSessions(store: store, identity: device.identity, random: random, now: configuration.now),
            directory: directory, channels: channels, gate: gate, locks: locks, random: random, now: configuration.now)
        self.outbox = OutboxSender(store: store, api: server, device: device, events: events, policy: configuration.outbox,
                                   drafts: DraftEncryptor(composer: composer, channels: channels, preparation: sendPreparation), sleep: configuration.sleep, now: configuration.now,
                                   clockWatch: ClockWatch(store: store, events: events, systemSeconds: configuration.userKeyClock,
                                                                          suspectLatch: suspectLatch))
        self.keys = KeyMaintenance(store: store, api: server, deviceID: device.deviceID, identity: device.identity, random: random,
                                   now: configuration.now, uploads: locks)
        let consumed = ConsumedPrekeysRelay()
        #if DEBUG
        var windowWaits: (@Sendable () -> Void)? = nil
        if let crash = configuration.debugCrash { windowWaits = { crash(.receiveWindowWaiting) } }
        var commitWindow = configuration.receiveCommitWindow
        if let rows = configuration.debugReceiveRowsPerCommit { commitWindow.maxRows = max(1, rows) }
        #else
        let windowWaits: (@Sendable () -> Void)? = nil
        let commitWindow = configuration.receiveCommitWindow
        #endif
        let pipeline = ReceivePipeline(store: store, device: device, listedIdentities: directory, events: events,
                                       clock: configuration.now, random: random, oneTimePrekeysConsumed: { _ in consumed.fire() },
                                       locks: locks, userKeySeconds: configuration.userKeyClock,
                                       commitWindow: commitWindow, commitWindowWaits: windowWaits)
        self.pipeline = pipeline
        self.syncEngine = SyncEngine(store: store, api: server, events: events, pipeline: pipeline, locks: locks,
                                     userID: device.userID, deviceID: device.deviceID, settings: SyncSettings(configuration))
        consumed.target = { [weak self] in self?.oneTimePrekeysConsumed() }
        syncEngine.attach(to: self)
    }

    /// A new subscription to the account's events (docs/spec/sync.md "Events to the app").
    public nonisolated func events() -> AsyncStream<AccountEvent> {
        broadcaster.events()
    }

    /// This device's public identity blob.
    public nonisolated var identity: IdentityBlob { device.identity.publicIdentity }

    // MARK: Session

    /// Stops all work for good (the app is closing): sends in flight are abandoned where they
    /// are — exactly as a kill would leave them — and the next ``open(server:store:configuration:)``
    /// reconciles and resumes them. Queueing still stores messages; nothing more is posted.
    /// Returns once the work it stopped has ended (a catch-up, an event being stored, a send,
    /// a retry, the account's own background work), so the app may close the store right after.
    public func shutdown() async {
        await outbox.observeSent(nil)
        await supervisor?.shutDown()
        supervisor = nil
        stateForwarding?.cancel()
        await outbox.shutdown()
        await syncEngine.stopRetries()
        await backgroundWork.finish()
    }

    /// Logs this device out (the refresh token is revoked; keys and messages stay).
    public func logout() async throws {
        await outbox.stop()
        try await api.logout()
    }

    /// Ends every session of the user on every device.
    public func logoutAll() async throws {
        await outbox.stop()
        try await api.logoutAll()
    }
}
