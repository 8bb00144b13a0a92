import E2EEKeyStore

/// The account's channels and their members, cached in the store. Membership comes only from
/// `GET …/members` (docs/spec/server-api.md: changes are never pushed); a member list older than
/// `memberLifetime` seconds, or marked stale (after `channel.new`, a reconnect or a send
/// failure), is re-read before a group send.
struct ChannelDirectory: Sendable {
    let store: KeyStore
    let api: any ChatServerAPI
    let events: EventBroadcaster
    let ownUserID: String
    let memberLifetime: Int64
    let now: @Sendable () -> StoreTime

    /// `GET /channels`: stores every listed channel and forgets the ones no longer listed.
    func refreshChannels() async throws -> [ChatChannel] {
        let listed = try await api.channels()
        let records = listed.map(record)
        let time = now()
        try await store.write { [store] db in
            let known = try store.channelStore.loadChannels(db).map(\.id)
            for stale in Set(known).subtracting(records.map(\.id)) {
                try store.channelStore.removeChannel(id: stale, db)
                try store.recordDeparture(channelID: stale, db)
            }
            for channel in records {
                try store.recordRejoin(channelID: channel.id, at: time, db)
                try store.channelStore.storeChannel(channel, db)
                try store.recipientStore.fixParticipants(learning: channel, ownUserID: ownUserID, db)
            }
        }
        return try await cachedChannels()
    }

    /// The channels in the store, oldest first.
    func cachedChannels() async throws -> [ChatChannel] {
        try await store.read { [store] db in try store.channelStore.loadChannels(db) }.map(ChatChannel.init)
    }

    /// Stores a channel the server just described (create, DM, `channel.new`); its members are stale.
    @discardableResult
    func remember(_ channel: ServerChannel) async throws -> ChatChannel {
        let record = record(channel)
        try await store.write { [store] db in
            try store.channelStore.storeChannel(record, db)
            try store.channelStore.markMembersStale(channelID: record.id, db)
            try store.recipientStore.fixParticipants(learning: record, ownUserID: ownUserID, db)
        }
        return ChatChannel(record)
    }

    /// The channel with `id`: from the store, else asked of the server.
    func channel(id: String) async throws -> ChatChannel {
        if let stored = try await store.read({ [store] db in try store.channelStore.loadChannel(id: id, db) }) {
            return ChatChannel(stored)
        }
        do {
            return try await remember(try await api.channel(id: id))
        } catch ServerError.notFound, ServerError.forbidden {
            throw MessagingError.unknownChannel(id)
        }
    }

    /// The channel's members, re-read from the server when stale or when `refresh` is set.
    /// A DM member who is not one of its two participants is surfaced by ``RecipientGate``
    /// before the next send (docs/spec/server-api.md note 5, docs/spec/protocol.md §5).
    func members(of channel: ChatChannel, refresh: Bool = false) async throws -> [ChannelMemberRecord] {
        let cached = try await store.read { [store] db in
            (try store.channelStore.loadChannel(id: channel.id, db), try store.channelStore.loadMembers(channelID: channel.id, db))
        }
        if !refresh, let fetched = cached.0?.membersFetchedAt, now().microseconds - fetched.microseconds < memberLifetime * 1_000_000 {
            return cached.1
        }
        let members = try await api.members(channelID: channel.id).map {
            ChannelMemberRecord(userID: $0.userID.lowercased(), username: $0.username, role: $0.role)
        }
        let time = now()
        try await store.write { [store] db in try store.channelStore.replaceMembers(channelID: channel.id, members: members, at: time, db) }
        return members
    }

    /// Marks member lists stale (`nil`: all of them).
    func markMembersStale(channelID: String?) async throws {
        try await store.write { [store] db in try store.channelStore.markMembersStale(channelID: channelID, db) }
    }

    /// Forgets a channel (after leaving it).
    func forget(channelID: String) async throws {
        try await store.write { [store] db in try store.channelStore.removeChannel(id: channelID, db) }
    }

    private func record(_ channel: ServerChannel) -> ChannelRecord {
        ChannelRecord(id: channel.id.lowercased(), name: channel.name, isDM: channel.isDM, encryptionType: channel.encryptionType,
                      createdBy: channel.createdBy, createdAt: StoreTime(microseconds: channel.createdAt.microseconds), membersFetchedAt: nil)
    }
}
