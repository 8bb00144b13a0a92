import E2EECrypto
import E2EEKeyStore

/// The account's sync, and its side of the connection (``ConnectionDelegate``): socket events go
/// to the receive path, catch-up, polling and the socket's confirmation reads page REST back to
/// the verified mark (docs/spec/sync.md guarantee 6, ``HistoryCatchUp``), `channel.new` adds and
/// subscribes channels, `keys.low_otp` for this device replenishes one-time prekeys. The
/// supervisor calls it one method at a time, in order; events of a socket reach it only after
/// that socket's first catch-up (the supervisor buffers them).
///
/// Built once, with the account, and kept for the account's life: whoever drives it — the
/// connection, ``Account/sync()``, the pre-send check — works on the same state. It **owns**
/// what only sync uses: the history cursor, the channels the socket delivered into since their
/// last confirmation read (``SocketDeliveries``), the
/// channels caught up by this process (``RollbackGuard``), the per-channel failures and their
/// retry (``ChannelFailureLog``), the delete inference, the gate on event-driven channel-list
/// refreshes and the throttle on `keys.low_otp` reactions. It **does not own** channels, keys,
/// the arrivals path or the outbox: those are its host's (``SyncHost``), held weakly because the
/// host owns the engine; without a host, catch-ups throw `CancellationError` and events are dropped.
final class SyncEngine: ConnectionDelegate, Sendable {
    /// The account's store (catch-up plans, removals, rollback marks).
    let store: KeyStore
    /// Where sync's own events go (failures, typing, refused input, removals).
    let events: EventBroadcaster
    /// The receive pipeline, for what does not go through the host's arrivals path: edits and
    /// re-driving pending messages after a catch-up.
    let pipeline: ReceivePipeline
    /// Pages one channel back to its verified mark.
    let history: HistoryCatchUp
    /// Reads what a catch-up left unread before the first send (docs/spec/protocol.md §3.13).
    let rangeScan: UnreadRangeScan
    /// When this engine (and so this opening of the store) began: keys renewed since need no
    /// renewal for an unread gap (a restore happens before the store is opened).
    let openedAt: StoreTime
    /// The time now (the account's clock).
    let now: @Sendable () -> StoreTime
    /// Our user id: a pre-send gap scan keeps this device's own messages.
    let userID: UserID
    /// This device's id: `keys.low_otp` is acted on for this device only.
    let deviceID: DeviceID
    private let link = SyncHostLink()

    /// The channel history positions kept in the store.
    let cursor: HistoryCursor
    /// The channels the socket delivered into since the last confirmation read.
    let socketDeliveries = SocketDeliveries()
    /// Channels a catch-up of this process read to the present (nothing is sent before).
    let rollbackGuard = RollbackGuard()
    /// The latest catch-up failure per channel, its backoff and the retry (docs/spec/sync.md guarantee 10).
    let channelFailures = ChannelFailureLog()
    /// Messages a catch-up no longer found, until a later read confirms them deleted.
    let deleteInference: DeleteInference
    /// Channel-list refreshes caused by events naming unknown channels, coalesced and spaced.
    let directoryRefreshes = DirectoryRefreshGate()
    /// `keys.low_otp` frames acted on at most once per interval.
    let lowPrekeyReactions = ReactionThrottle(interval: .seconds(60))
    /// The server's deletes, as marks.
    let removals: ServerRemovals

    /// An engine with no host yet: the account attaches itself (``attach(to:)``) once it exists.
    init(store: KeyStore, api: any ChatServerAPI, events: EventBroadcaster, pipeline: ReceivePipeline, locks: KeyedAsyncLock,
         userID: UserID, deviceID: DeviceID, settings: SyncSettings) {
        self.store = store
        self.events = events
        self.pipeline = pipeline
        self.history = HistoryCatchUp(api: api, store: store, limit: settings.catchUpLimit, byteLimit: settings.catchUpByteLimit)
        self.rangeScan = UnreadRangeScan(api: api, store: store, now: settings.now, maximumMessages: 4 * settings.catchUpLimit)
        self.openedAt = settings.now()
        self.now = settings.now
        self.userID = userID
        self.deviceID = deviceID
        self.cursor = HistoryCursor(store: store, locks: locks, now: settings.now,
                                    overlap: settings.catchUpOverlap.microsecondCount, maxSkew: settings.maxClockSkew.microsecondCount)
        self.deleteInference = DeleteInference(now: settings.now)
        self.removals = ServerRemovals(store: store, events: events, now: settings.now)
    }

    /// Attaches the host (held weakly): the account, at the end of its initializer.
    func attach(to host: any SyncHost) {
        link.attach(host)
    }

    /// The host, for work that cannot go on without it.
    /// - Throws: `CancellationError` when the account is gone (nothing is left to sync for).
    func requireHost() throws -> any SyncHost {
        guard let host = link.host else { throw CancellationError() }
        return host
    }

    /// The host if it is still there (for work that is simply dropped without it).
    var host: (any SyncHost)? { link.host }

    // MARK: ConnectionDelegate (catch-up in SyncEngine+CatchUp, events in SyncEngine+Events)

    func channelsToSubscribe() async -> [ChannelID] {
        guard let host else { return [] }
        return (try? await host.allChannels().map(\.id)) ?? []
    }

    func catchUp(reason: CatchUpReason) async throws {
        let host = try requireHost()
        switch reason {
        case .subscribed(let channelID), .subscribedFollowUp(let channelID):
            let channel = try await host.channel(id: channelID)
            try await catchUpChannels([channel])
        case .connectedFollowUp, .foreground:
            try await catchUpAll()
            await host.watchMembership()
        case .connected:
            try await catchUpAll()
        case .socketConfirmation:
            // Only the channels the socket delivered into (the others' marks did not move, so
            // the next catch-up of any kind reads whatever they missed), in a catch-up's order
            // and within its budget: past ``CatchUpPlan/channelsPerCatchUp`` the rest wait for the retry.
            let delivered = socketDeliveries.take()
            let channels = try await host.allChannels().filter { delivered.contains($0.id) }
            try await catchUpChannels(try await CatchUpPlan.ordered(channels, first: nil, store: store))
        }
    }

    func poll() async throws {
        let host = try requireHost()
        try await catchUpAll()
        await host.watchMembership()
    }

    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool {
        guard let host else { return false }  // the account is gone: nothing to reconnect for
        return try await host.socketMissedMessages(connectedFor: connectedFor, grace: grace)
    }

    func watchMembership() async {
        await host?.watchMembership()
    }

    func inputRefused(reason: String) async {
        events.publish(.inputRefused(reason: reason))
    }

    func sessionEnded() async {
        events.publish(.sessionEnded)
    }

    func willDisconnectForBackground() async {
        // Nothing to persist: messages are durable once their batch commits, and only REST reads,
        // which write their marks as they go, move the verified marks.
    }
}
