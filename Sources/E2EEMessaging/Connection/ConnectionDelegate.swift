/// What the connection supervisor needs from its account: the channels to subscribe, and the
/// sync work it triggers. The supervisor calls these one at a time, in order (never two at
/// once), so the delegate sees a socket's events strictly in the order they arrived.
///
/// Do not call ``ConnectionSupervisor/enterBackground()`` from inside one of these methods: it
/// waits for the delegate calls queued before it.
package protocol ConnectionDelegate: AnyObject, Sendable {
    /// The channels to `subscribe` on every socket that opens (the server may not have
    /// auto-subscribed them). Channels passed to ``ConnectionSupervisor/subscribe(channelID:)``
    /// are added by the supervisor.
    func channelsToSubscribe() async -> [ChannelID]

    /// Page REST back from newest until the store overlaps, merge, and dedupe.
    /// - Throws: ``ServerError/sessionEnded`` to stop the supervisor (state `.failed`); any
    ///   other error is the delegate's to report, and the supervisor carries on.
    func catchUp(reason: CatchUpReason) async throws

    /// One event from the socket, in arrival order. Events are hints (docs/spec/server-api.md): dedupe by id.
    func received(_ event: RealtimeEvent) async

    /// New messages one socket delivered in a row, in arrival order (those that queued up while
    /// the delegate was busy). By default each is handed over as its own `message.new` event.
    func received(messages: [ServerMessage]) async

    /// One REST poll while the socket is down (every ``ConnectionPolicy/pollInterval``).
    /// - Throws: ``ServerError/sessionEnded`` to stop the supervisor; other errors as in
    ///   ``catchUp(reason:)``.
    func poll() async throws

    /// The light deaf-socket check (every ``ConnectionPolicy/deafCheckInterval`` while
    /// connected and the echo check cannot watch the socket, docs/spec/sync.md §11.6): one REST read — a page of the most recently active
    /// channel — and whether it holds a message the socket should have delivered and did not:
    /// one the store lacks, created more than `grace` after the socket opened (`connectedFor`
    /// ago) and more than `grace` before now. `true` closes the socket and reconnects (with the
    /// catch-up); the check itself need not store what it read.
    /// - Throws: ``ServerError/sessionEnded`` to stop the supervisor; other errors as in
    ///   ``catchUp(reason:)`` (the socket is then kept).
    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool

    /// The membership watch while connected (every ``ConnectionPolicy/membershipWatchInterval``):
    /// re-read the member lists, since the server never pushes membership changes.
    func watchMembership() async

    /// Input from the server was refused and skipped (a malformed frame); `reason` is public
    /// text that never contains the input. The stream goes on.
    func inputRefused(reason: String) async

    /// The session ended (refresh refused, tokens wiped): the supervisor stopped in `.failed`.
    func sessionEnded() async

    /// The app is going to the background: the socket is closed and its last events were
    /// handed over (or ``ConnectionPolicy/closeDrainLimit`` passed). Persist cursors now.
    func willDisconnectForBackground() async
}

extension ConnectionDelegate {
    /// Each message as its own `message.new` event, in order.
    package func received(messages: [ServerMessage]) async {
        for message in messages { await received(.messageNew(message)) }
    }
}
