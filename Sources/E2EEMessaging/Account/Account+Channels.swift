import E2EEKeyStore

extension Account {
    /// Re-reads the channel list from the server. Link channels (docs/spec/protocol.md §10.22)
    /// are kept for the account's own use and never listed.
    /// - Throws: ``ServerError``, key store errors.
    public func refreshChannels() async throws -> [ChatChannel] {
        try await refreshAllChannels().filter { !$0.hasLinkShape }
    }

    /// Re-reads the channel list from the server, link channels included (what sync follows).
    /// - Throws: ``ServerError``, key store errors.
    func refreshAllChannels() async throws -> [ChatChannel] {
        let channels = try await channelDirectory.refreshChannels()
        broadcaster.publish(.channelsChanged)
        return channels
    }

    /// The channels as last read, link channels included (what sync follows).
    /// - Throws: key store errors.
    func allChannels() async throws -> [ChatChannel] {
        try await channelDirectory.cachedChannels()
    }

    /// The channels as last read, without link channels.
    /// - Throws: key store errors.
    public func channels() async throws -> [ChatChannel] {
        try await channelDirectory.cachedChannels().filter { !$0.hasLinkShape }
    }

    /// The channel with `id` (from the store, else from the server).
    /// - Throws: ``MessagingError/unknownChannel(_:)``, ``ServerError``.
    public func channel(id: ChannelID) async throws -> ChatChannel {
        try await channelDirectory.channel(id: id)
    }

    /// The members of a channel, re-read from the server.
    /// - Throws: ``ServerError``, key store errors.
    public func members(of channelID: ChannelID) async throws -> [ListedMember] {
        try await channelDirectory.members(of: channel(id: channelID), refresh: true).map(ListedMember.init)
    }

    /// Creates a group (sender keys) and adds `members` (user ids). Its kind is pinned from this
    /// request, whatever the server answers, and the members named here are approved: anyone
    /// else the server lists later is held until ``approveMember(_:in:)`` (docs/spec/protocol.md §5).
    /// The open socket is subscribed to it at once: the server announces a new channel
    /// (`channel.new`) to the members it adds, not to its creator (docs/spec/sync.md §11.5).
    /// - Throws: ``ServerError``, key store errors.
    public func createGroup(name: String, members: [UserID] = []) async throws -> ChatChannel {
        return try await trustDecision {
            let channel = try await channelDirectory.remember(try await api.createChannel(name: name), created: .group)
            await supervisor?.subscribe(channelID: channel.id)
            for member in members {
                try await approveMembers([member.rawValue], in: channel.id)
                try await api.addMember(channelID: channel.id, userID: member)
            }
            broadcaster.publish(.channelsChanged)
            return channel
        }
    }

    /// The DM with `userID` (created if it does not exist). Opening it is this device's own
    /// decision: its kind is pinned as a DM and its participants are fixed to us and `userID`
    /// (a request for that DM is accepted). A DM this device already knows with that user —
    /// opened before, or a request whose members name them (another of our devices' DM,
    /// learned here before they wrote to this device) — is reused without asking the server
    /// for one.
    /// - Throws: ``MessagingError/channelKindContradicted(channelID:)`` when the server answers
    ///   with a channel this device pinned as a group, ``ServerError``, key store errors.
    public func openDirectMessage(with userID: UserID) async throws -> ChatChannel {
        return try await trustDecision {
            if let known = try await knownDirectMessage(with: userID) { return try await reopenDirectMessage(known, with: userID) }
            let channel = try await channelDirectory.remember(try await api.openDirectMessage(userID: userID), created: .directMessage)
            guard channel.isDM else { throw MessagingError.channelKindContradicted(channelID: channel.id) }
            await supervisor?.subscribe(channelID: channel.id)  // as createGroup: no `channel.new` comes to its opener
            let fixedNow = try await recipientGate.fixParticipants(channelID: channel.id, otherUser: userID)
            broadcaster.publish(.channelsChanged)
            // Opening a DM that was a request here accepts it: its waiting messages go on.
            if fixedNow { _ = try await pipeline.redrivePending() }
            return channel
        }
    }

    /// Adds `userID` to a group; adding through the core is this device's approval of the
    /// member, announced in the group (docs/spec/protocol.md §5.15). The joiner gets our current sender key state with our next message, never an
    /// earlier one (T11).
    /// - Throws: ``ServerError``, key store errors.
    public func addMember(_ userID: UserID, to channelID: ChannelID) async throws {
        try await trustDecision {
            try await approveMembers([userID.rawValue], in: channelID)
            try await api.addMember(channelID: channelID, userID: userID)
            await supervisor?.subscribe(channelID: channelID)  // a group another of our devices created may not be subscribed yet
            try await channelDirectory.markMembersStale(channelID: channelID)
            await announce(.added, [userID.rawValue], in: channelID)
        }
    }

    /// Leaves a channel and forgets it.
    /// - Throws: ``ServerError``, key store errors.
    public func leave(_ channelID: ChannelID) async throws {
        try await trustDecision {
            try await api.leaveChannel(id: channelID)
            try await channelDirectory.forget(channelID: channelID)
            try await store.recordDeparture(channelID: channelID.rawValue)
            broadcaster.publish(.channelsChanged)
        }
    }
}
