import E2EEKeyStore

extension Account {
    /// Re-reads the channel list from the server.
    /// - Throws: ``ServerError``, key store errors.
    public func refreshChannels() async throws -> [ChatChannel] {
        let channels = try await channelDirectory.refreshChannels()
        broadcaster.publish(.channelsChanged)
        return channels
    }

    /// The channels as last read.
    /// - Throws: key store errors.
    public func channels() async throws -> [ChatChannel] {
        try await channelDirectory.cachedChannels()
    }

    /// The channel with `id` (from the store, else from the server).
    /// - Throws: ``MessagingError/unknownChannel(_:)``, ``ServerError``.
    public func channel(id: String) async throws -> ChatChannel {
        try await channelDirectory.channel(id: id.lowercased())
    }

    /// The members of a channel, re-read from the server.
    /// - Throws: ``ServerError``, key store errors.
    public func members(of channelID: String) async throws -> [ChannelMemberRecord] {
        try await channelDirectory.members(of: channel(id: channelID), refresh: true)
    }

    /// Creates a group (sender keys) and adds `members` (user ids).
    /// - Throws: ``ServerError``, key store errors.
    public func createGroup(name: String, members: [String] = []) async throws -> ChatChannel {
        let channel = try await channelDirectory.remember(try await api.createChannel(name: name))
        for member in members { try await api.addMember(channelID: channel.id, userID: member.lowercased()) }
        broadcaster.publish(.channelsChanged)
        return channel
    }

    /// The DM with `userID` (created if it does not exist).
    /// - Throws: ``ServerError``, key store errors.
    public func openDirectMessage(with userID: String) async throws -> ChatChannel {
        let channel = try await channelDirectory.remember(try await api.openDirectMessage(userID: userID.lowercased()))
        try await recipientGate.fixParticipants(channelID: channel.id, otherUser: userID)
        broadcaster.publish(.channelsChanged)
        return channel
    }

    /// Adds `userID` to a group. The joiner gets our current sender key state with our next
    /// message, never an earlier one (T11).
    /// - Throws: ``ServerError``, key store errors.
    public func addMember(_ userID: String, to channelID: String) async throws {
        try await api.addMember(channelID: channelID.lowercased(), userID: userID.lowercased())
        try await channelDirectory.markMembersStale(channelID: channelID.lowercased())
    }

    /// Leaves a channel and forgets it.
    /// - Throws: ``ServerError``, key store errors.
    public func leave(_ channelID: String) async throws {
        try await api.leaveChannel(id: channelID.lowercased())
        try await channelDirectory.forget(channelID: channelID.lowercased())
        try await store.recordDeparture(channelID: channelID.lowercased())
        broadcaster.publish(.channelsChanged)
    }
}
