import E2EEKeyStore

/// The account's channels and their members, cached in the store. Membership comes only from
/// `GET …/members` (docs/spec/server-api.md: changes are never pushed); a member list older than
/// `memberLifetime`, or marked stale (after `channel.new`, a reconnect or a send
/// failure), is re-read before a group send.
struct ChannelDirectory: Sendable {
    let store: KeyStore
    let api: any ChatServerAPI
    let events: EventBroadcaster
    let ownUserID: UserID
    let memberLifetime: Duration
    let now: @Sendable () -> StoreTime

    /// `GET /channels`: stores every listed channel and forgets the ones no longer listed.
    /// A channel is learned once (docs/spec/protocol.md §5): its kind is pinned the first time,
    /// a listing that contradicts it is surfaced and never followed, and what this device
    /// decided (pin, standing, members) survives the channel's absence from a listing.
    func refreshChannels() async throws -> [ChatChannel] {
        let listed = try await api.channels()
        let time = now()
        let contradicted = try await store.write { [store, self] db -> [String] in
            let known = try store.channelStore.loadChannels(db).map(\.id)
            for stale in Set(known).subtracting(listed.map(\.id.rawValue)) {
                try store.channelStore.removeChannel(id: stale, db)
                try store.recordDeparture(channelID: stale, db)
            }
            var contradicted: [String] = []
            for channel in listed {
                let learned = try store.channelTrustStore.learn(record(channel), createdAsDM: nil, at: time, db)
                try store.recordRejoin(channelID: learned.record.id, at: time, db)
                try store.channelStore.storeChannel(learned.record, db)
                if learned.firstContradiction { contradicted.append(learned.record.id) }
            }
            return contradicted
        }
        publishContradictions(contradicted)
        return try await cachedChannels()
    }

    /// The channels in the store, oldest first.
    func cachedChannels() async throws -> [ChatChannel] {
        try await store.read { [store] db in try store.channelStore.loadChannels(db) }.map(ChatChannel.init)
    }

    /// Stores a channel the server just described (create, DM, `channel.new`); its members are
    /// stale. `created`: the kind this device asked for when it created or opened the channel
    /// (its pin, whatever the answer says, and its own decision); `nil`: learned, a request
    /// until the app accepts it.
    @discardableResult
    func remember(_ channel: ServerChannel, created: ChannelKind? = nil) async throws -> ChatChannel {
        let time = now()
        let learned = try await store.write { [store, self] db in
            let learned = try store.channelTrustStore.learn(record(channel), createdAsDM: created?.isDM, at: time, db)
            try store.channelStore.storeChannel(learned.record, db)
            try store.channelStore.markMembersStale(channelID: learned.record.id, db)
            return learned
        }
        if learned.firstContradiction { publishContradictions([learned.record.id]) }
        return ChatChannel(learned.record)
    }

    /// The channel with `id`: from the store, else asked of the server.
    func channel(id: ChannelID) async throws -> ChatChannel {
        if let stored = try await store.read({ [store] db in try store.channelStore.loadChannel(id: id.rawValue, db) }) {
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
            (try store.channelStore.loadChannel(id: channel.id.rawValue, db), try store.channelStore.loadMembers(channelID: channel.id.rawValue, db))
        }
        if !refresh, let fetched = cached.0?.membersFetchedAt, now().microseconds - fetched.microseconds < memberLifetime.microsecondCount {
            return cached.1
        }
        let members = try await api.members(channelID: channel.id).map {
            ChannelMemberRecord(userID: $0.userID.rawValue, username: $0.username, role: $0.role)
        }
        let time = now()
        try await store.write { [store] db in try store.channelStore.replaceMembers(channelID: channel.id.rawValue, members: members, at: time, db) }
        return members
    }

    /// Marks member lists stale (`nil`: all of them).
    func markMembersStale(channelID: ChannelID?) async throws {
        try await store.write { [store] db in try store.channelStore.markMembersStale(channelID: channelID?.rawValue, db) }
    }

    /// Forgets a channel (after leaving it).
    func forget(channelID: ChannelID) async throws {
        try await store.write { [store] db in try store.channelStore.removeChannel(id: channelID.rawValue, db) }
    }

    private func record(_ channel: ServerChannel) -> ChannelRecord {
        ChannelRecord(id: channel.id.rawValue, name: channel.name, isDM: channel.isDM, encryptionType: channel.encryptionType,
                      createdBy: channel.createdBy?.rawValue, createdAt: StoreTime(microseconds: channel.createdAt.microseconds), membersFetchedAt: nil)
    }

    private func publishContradictions(_ channelIDs: [String]) {
        for id in channelIDs { events.publish(.identity(.channelKindContradicted(channelID: ChannelID(stored: id)))) }
    }
}

/// The kind of channel this device asks for when it creates or opens one.
enum ChannelKind: Sendable, Equatable {
    case directMessage
    case group

    var isDM: Bool { self == .directMessage }
}
