import E2EECrypto
import E2EEKeyStore

extension Account {
    /// Pages every channel back to what the store has, ingests what is new, and re-drives the
    /// pending queue (what the connection does on every connect; also usable without a socket).
    /// A channel whose reads fail is recorded (``channelSyncFailures()``) while the others are
    /// caught up, and read again after its own backoff (this call, asked for explicitly, also
    /// reads channels still in their backoff; the connection's catch-ups do not); channels
    /// beyond one catch-up's request budget are read a little later.
    /// - Throws: ``ServerError`` when the channel list cannot be read or every channel's read
    ///   failed at the server, key store errors.
    public func sync() async throws {
        try await syncEngine.catchUpAll(everyChannel: true)
    }

    /// Catches up `channelID` alone (then re-drives the pending queue): what a caller that shows
    /// one channel needs, answered whatever the other channels do. The other channels are
    /// caught up by ``sync()`` and the connection.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, the ``ServerError`` of this channel's
    ///   reads (also recorded, with its backoff), key store errors.
    public func sync(channelID: ChannelID) async throws {
        try await syncEngine.catchUpAsked(channelID: channelID)
    }

    /// Ingests messages of a channel as they came (a REST page, a socket event) through the
    /// account's one way in (own echoes, the rollback check, then dedupe, order, decryption
    /// per sender device, one commit per chunk): one outcome each.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, key store errors (never for bad input).
    @discardableResult
    package func ingest(_ messages: [ServerMessage], channelID: ChannelID) async throws -> [ReceiveOutcome] {
        let channel = try await channel(id: channelID)
        guard let encryption = channel.encryption else { throw MessagingError.unsupportedChannel(channel.id.rawValue) }
        return try await admit(messages, channel: ReceivingChannel(id: channel.id, encryption: encryption))
    }

    /// Our own messages seen again (socket echo or REST page) are delivered (docs/spec/sync.md "Outbox"):
    /// the timeline already holds them since the 201, so the receive side's dedupe would skip
    /// them; the outbox looks at each one first.
    /// Ours means our user *and* our device (T19): a copy someone else re-posts claiming our
    /// device id is not ours. This is the only place echoes are matched: the receive pipeline
    /// is told the ids the outbox recognised.
    /// - Returns: the ids the outbox recognised as messages this device sent.
    func noteOwnEchoes(_ messages: [ServerMessage]) async throws -> Set<MessageID> {
        var recognised: Set<MessageID> = []
        for message in messages where message.isFrom(userID: userID, deviceID: deviceID) {
            if try await outbox.ownMessageSeen(message) { recognised.insert(message.id) }
        }
        return recognised
    }

    /// Loads a channel's history older than the store holds, for an app scrolling up: pages
    /// back from where the last call (or the oldest stored message) stopped, with the tie-safe
    /// pager, each page merged, deduped and decrypted like any other (a key found further back
    /// makes the messages that waited for it readable), until at least `limit` messages were
    /// added or the channel's first message is in the store. A catch-up fetches at most
    /// ``AccountConfiguration/catchUpLimit`` messages, so a fresh store gets the newest ones
    /// and this call the rest.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, ``ServerError``, key store errors.
    public func loadOlder(channelID: ChannelID, limit: Int = 50) async throws -> OlderHistory {
        let channel = try await channel(id: channelID)
        guard channel.encryption != nil else { throw MessagingError.unsupportedChannel(channel.id.rawValue) }
        let loader = OlderHistoryLoader(api: api, store: store, cursor: syncEngine.cursor) { messages, channelID in
            _ = try await self.ingest(messages, channelID: channelID)
        }
        return try await loader.load(channelID: channel.id, limit: limit)
    }

    /// A page of a channel's timeline from the store, oldest → newest, ordered by
    /// `(created_at, id)`; `before` pages further back.
    /// - Throws: key store errors.
    public func timeline(channelID: ChannelID, before: TimelinePosition? = nil, limit: Int = 50) async throws -> [TimelineItem] {
        try await TimelineReader(store: store).page(channelID: channelID, before: before, limit: limit)
    }

    /// Observes a channel's timeline: first the newest `limit` items, then the changes of each
    /// committed batch that touches the channel, as rows to insert, update or remove — and a
    /// fresh snapshot instead of any changes the reader was too slow to take (``TimelineUpdates``).
    /// Changes committed from this call on are observed.
    public nonisolated func timelineUpdates(channelID: ChannelID, limit: Int = 50) -> TimelineUpdates {
        TimelineUpdates(channelID: channelID, limit: max(1, limit), reader: TimelineReader(store: store),
                        signals: broadcaster.timelineSignals(bufferLimit: configuration.eventBufferLimit))
    }

    /// Opens the realtime connection (ticket per attempt, backoff, polling fallback, catch-up on
    /// every connect); its states are on ``connectionStates`` and in ``events()``.
    public func connect(using connector: any RealtimeConnecting, policy: ConnectionPolicy = .standard) async {
        if let supervisor { await supervisor.stop() }
        let supervisor = ConnectionSupervisor(api: api, connector: connector, policy: policy)
        await supervisor.setDelegate(syncEngine)  // held weakly by the supervisor; the account keeps it
        self.supervisor = supervisor
        let states = supervisor.states
        let events = broadcaster
        stateForwarding?.cancel()
        // The outbox tells the deaf-socket watchdog of each 201 itself (not through events()).
        await outbox.observeSent { [supervisor] serverID in await supervisor.expectEcho(messageID: MessageID(stored: serverID)) }
        stateForwarding = Task {
            for await state in states { events.publish(.connection(state)) }
        }
        await supervisor.start()
        startRenewalTimer()  // a primary renews daily while connected (protocol.md §10.13)
    }

    /// Every connection state change (empty when not connected).
    public var connectionStates: AsyncStream<ConnectionState> {
        supervisor?.states ?? AsyncStream { $0.finish() }
    }

    /// Closes the connection; sending goes on over REST.
    public func disconnect() async {
        await outbox.observeSent(nil)
        await supervisor?.stop()
        supervisor = nil
        stateForwarding?.cancel()
    }

    /// The app went to the background: the socket closes cleanly.
    public func enterBackground() async {
        await supervisor?.enterBackground()
    }

    /// The app is back: reconnect and catch up.
    public func enterForeground() async {
        await supervisor?.enterForeground()
    }

    /// The network changed: reconnect after a short settle, and catch up.
    public func networkChanged() async {
        await supervisor?.networkChanged()
    }

    /// A channel announced by `channel.new`: stored, subscribed, caught up.
    func adoptAnnouncedChannel(_ channel: ServerChannel) async throws {
        let adopted = try await channelDirectory.remember(channel)
        broadcaster.publish(.channelsChanged)
        await supervisor?.subscribe(channelID: adopted.id)
    }

    /// Runs key retention (``KeyRetention``), replenishes one-time prekeys when fewer than 10 are
    /// left locally, rotates the signed prekey when it is older than 7 days (docs/spec/sync.md "Keys at
    /// runtime"), and on a primary renews its own certificate when due (docs/spec/protocol.md §10.13).
    func maintainKeysIfNeeded() async throws {
        try await KeyRetention(store: store, now: configuration.now, device: try? WireUUID(text: device.deviceID.rawValue)).run()
        if try await keys.isLow() { try await replenishOneTimePrekeys() }
        try await rotateSignedPrekey()
        try await renewOwnCertificateIfDue()  // the primary's own certificate (protocol.md §10.13)
    }

    /// Prekey messages consumed one-time prekeys: republish the remaining list (docs/spec/protocol.md §2).
    nonisolated func oneTimePrekeysConsumed() {
        backgroundWork.run { try? await self.republishKeys() }
    }

    private func republishKeys() async throws {
        try await keys.uploadFullBundle()
    }
}
