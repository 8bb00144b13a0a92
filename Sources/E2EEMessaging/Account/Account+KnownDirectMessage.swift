import E2EEKeyStore

/// `openDirectMessage(with:)` on a device that already knows a DM with that user: the DM is
/// reused, not asked of the server again (a server may answer with a second DM, and a second
/// device of ours learns the first one as a request it could not accept until the contact
/// writes to it again).
extension Account {
    /// The DM this device already has with `user`: one whose participants are fixed to us and
    /// `user`, else the oldest DM request whose member list lists exactly us and `user` (one
    /// listing a third user is left to the server's answer).
    /// - Throws: key store errors; ``ServerError`` reading a request's members.
    func knownDirectMessage(with user: UserID) async throws -> ChatChannel? {
        let own = userID
        let (open, requests) = try await store.read { [store] db -> ([String], [String]) in
            let trust = store.channelTrustStore
            let open = try (try trust.loadPins(standing: .created, db) + trust.loadPins(standing: .accepted, db)).filter(\.isDM)
                .filter { try store.recipientStore.loadParticipants(channelID: $0.channelID, db) == [own.rawValue, user.rawValue] }
            return (open.map(\.channelID), try trust.loadPins(standing: .request, db).filter(\.isDM).map(\.channelID))
        }
        for id in open {
            if let channel = try? await channelDirectory.channel(id: ChannelID(stored: id)) { return channel }
        }
        for id in requests {
            guard let channel = try? await channelDirectory.channel(id: ChannelID(stored: id)), channel.isDM else { continue }
            let members = Set(try await channelDirectory.members(of: channel).map(\.userID))
            if members == [user.rawValue, own.rawValue] { return channel }
        }
        return nil
    }

    /// Opens `channel`, a DM this device knows with `user`: a request is accepted with `user`
    /// as its participant — the user named them — and its waiting messages go on (anyone
    /// else's are refused, docs/spec/protocol.md §5.9–§5.10).
    func reopenDirectMessage(_ channel: ChatChannel, with user: UserID) async throws -> ChatChannel {
        await supervisor?.subscribe(channelID: channel.id)
        let fixedNow = try await recipientGate.fixParticipants(channelID: channel.id, otherUser: user)
        try await store.write { [store] db in
            guard try store.channelTrustStore.loadPin(channelID: channel.id.rawValue, db)?.standing == .request else { return }
            try store.channelTrustStore.storeStanding(.accepted, channelID: channel.id.rawValue, db)
            try store.channelTrustStore.removeRequestView(channelID: channel.id.rawValue, db)
        }
        broadcaster.publish(.channelsChanged)
        if fixedNow { _ = try await pipeline.redrivePending() }
        return channel
    }
}
