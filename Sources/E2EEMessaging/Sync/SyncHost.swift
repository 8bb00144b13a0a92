import E2EEKeyStore

/// What the sync engine asks of the account it syncs for: the work a catch-up or an event
/// triggers that is not sync's own. Channels belong to the channel directory, keys to key
/// maintenance, arrivals to the account's one way in, sends to the outbox; the engine only
/// decides *when* each runs. Keeping the list this narrow is what lets the engine hold its
/// state itself and take everything else as explicit dependencies.
///
/// ``Account`` is the only host. The engine holds it weakly (``SyncHostLink``): the account
/// owns the engine, so a strong reference back would keep both alive for ever.
protocol SyncHost: AnyObject, Sendable {
    // MARK: Channels

    /// The channels as last read (no request), link channels included.
    func allChannels() async throws -> [ChatChannel]
    /// The channel list re-read from the server, link channels included.
    func refreshAllChannels() async throws -> [ChatChannel]
    /// The channel with `id` (from the store, else from the server).
    func channel(id: ChannelID) async throws -> ChatChannel
    /// A channel announced by `channel.new`: stored, subscribed, caught up.
    func adoptAnnouncedChannel(_ channel: ServerChannel) async throws
    /// Re-reads the member lists of the most active channels (the server never pushes membership).
    func watchMembership() async

    // MARK: Arrivals

    /// The account's one way in for posted messages (own echoes, the rollback check, the pipeline).
    func admit(_ messages: [ServerMessage], channel: ReceivingChannel) async throws -> [ReceiveOutcome]
    /// Records and publishes a rollback found in `messages`, without ingesting them (the
    /// messages a pre-send scan kept past the catch-up limit are evidence only).
    func detectRollback(in messages: [ServerMessage], channelID: ChannelID) async throws
    /// The light deaf-socket read: whether the socket missed a message it should have delivered.
    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool

    // MARK: Keys and sending

    /// Key retention, one-time prekey replenishment and signed prekey rotation, as due.
    func maintainKeysIfNeeded() async throws
    /// Renews sessions, sender keys and prekeys when the store is marked rolled back.
    func renewKeysIfRolledBack() async throws
    /// Tops the one-time prekeys up (a `keys.low_otp` frame for this device); returns how many were uploaded.
    func replenishOneTimePrekeys(target: Int?, serverRemaining: Int?) async throws -> Int
    /// The server answered a catch-up: outbox entries waiting for a reachable server go out.
    func serverAnswered() async
    /// A new device of our own user is held and surfaced now, not at our next send.
    func noticeOwnNewDevices() async
}
