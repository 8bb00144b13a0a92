@_spi(StoreInternals) import E2EEKeyStore

/// The account's half of the deaf-socket detection (docs/spec/sync.md §11.6): the light REST
/// check the supervisor asks for where its echo check cannot watch the socket (turned off, or a
/// server that never echoed it).
extension Account {
    /// Messages the light check reads from the most recently active channel: only the newest,
    /// so that the check costs one small request (docs/spec/sync.md "Connection": within the idle
    /// budget). A deaf socket that missed several messages is noticed by the newest one; one
    /// still inside the grace is looked at by the next check.
    static let deafCheckPageSize = 1

    /// One REST page of the channel whose newest stored message is the newest of all, and
    /// whether it holds a message the store lacks that was created more than `grace` after
    /// the socket opened (`connectedFor` ago) and more than `grace` before now — one the socket
    /// should have delivered. Nothing is stored: the reconnect's catch-up reads it again.
    /// - Throws: ``ServerError``, key store errors.
    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool {
        guard let channelID = try await mostRecentlyActiveChannel() else { return false }
        let page = try await api.messages(channelID: channelID, before: nil, limit: Self.deafCheckPageSize)
        let now = configuration.now().microseconds
        let graceMicros = grace.microsecondCount
        let openedAt = now - connectedFor.microsecondCount
        let due = page.messages.filter {
            let created = $0.createdAt.microseconds
            return created >= openedAt + graceMicros && created <= now - graceMicros
        }
        guard !due.isEmpty else { return false }
        let known = try await store.knownMessageIDs(due.map(\.id.rawValue))
        return due.contains { !known.contains($0.id.rawValue) }
    }

    /// The channel with the newest stored message (the first channel when none has one).
    private func mostRecentlyActiveChannel() async throws -> ChannelID? {
        let channels = try await channels().filter { $0.encryption != nil }
        var newest: (id: ChannelID, time: StoreTime)?
        for channel in channels {
            guard let last = try await store.timelinePage(channelID: channel.id.rawValue, limit: 1).last else { continue }
            if newest.map({ last.createdAt > $0.time }) ?? true { newest = (channel.id, last.createdAt) }
        }
        return newest?.id ?? channels.first?.id
    }
}
