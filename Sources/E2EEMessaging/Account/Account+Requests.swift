import E2EEKeyStore

/// A channel this device learned from the server and has not accepted: nothing is sent in it
/// until the app accepts it (docs/spec/protocol.md §5).
public struct ChannelRequest: Sendable, Equatable {
    /// The channel.
    public var channel: ChatChannel
    /// For a DM: the user who would become its participant on acceptance — the earliest other
    /// user whose message this device decrypted in it (`nil` while there is none).
    public var candidate: UserID?
    /// For a group: the members the server lists now (accepting approves them).
    public var members: [UserID]

    /// Creates the value.
    public init(channel: ChatChannel, candidate: UserID?, members: [UserID]) {
        self.channel = channel
        self.candidate = candidate
        self.members = members
    }
}

extension Account {
    /// The channels this device did not create, open or accept: requests, oldest first. A
    /// group's members are re-read from the server.
    /// - Throws: ``ServerError``, key store errors.
    public func channelRequests() async throws -> [ChannelRequest] {
        let own = userID
        let pins = try await store.read { [store] db in try store.channelTrustStore.loadPins(standing: .request, db) }
        var requests: [ChannelRequest] = []
        for pin in pins {
            guard let channel = try? await channelDirectory.channel(id: ChannelID(stored: pin.channelID)) else { continue }
            if pin.isDM {
                let candidate = try await store.read { [store] db in
                    try store.channelTrustStore.loadCandidate(channelID: pin.channelID, ownUserID: own.rawValue, db)
                }
                requests.append(ChannelRequest(channel: channel, candidate: candidate.map { UserID(stored: $0) }, members: []))
            } else {
                let members = try await channelDirectory.members(of: channel, refresh: true).map { UserID(stored: $0.userID) }
                requests.append(ChannelRequest(channel: channel, candidate: nil, members: members))
            }
        }
        return requests
    }

    /// Accepts a request. A DM's participant becomes its candidate (the earliest other user
    /// who wrote in it, as ``channelRequests()`` shows); a group's members become the ones the
    /// server lists now — anyone listed later is held until approved; a group accepted (or
    /// created) here already stays as it is. Returns the DM's participant, or the group's
    /// approved members.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, ``MessagingError/noCandidate(channelID:)``
    ///   for a DM no other user wrote in yet, ``ServerError`` (members), key store errors.
    @discardableResult
    public func acceptChannel(_ channelID: ChannelID) async throws -> [UserID] {
        let channel = try await channelDirectory.channel(id: channelID)
        let own = userID
        let accepted: [String]
        if channel.isDM {
            let candidate = try await store.read { [store] db in
                (try store.recipientStore.loadParticipants(channelID: channel.id.rawValue, db).subtracting([own.rawValue]).first,
                 try store.channelTrustStore.loadCandidate(channelID: channel.id.rawValue, ownUserID: own.rawValue, db))
            }
            guard let participant = candidate.0 ?? candidate.1 else { throw MessagingError.noCandidate(channelID: channel.id) }
            try await recipientGate.fixParticipants(channelID: channel.id, otherUser: UserID(stored: participant))
            accepted = [participant]
        } else {
            let pin = try await store.read { [store] db in try store.channelTrustStore.loadPin(channelID: channel.id.rawValue, db) }
            if let pin, pin.standing == .created || pin.standing == .accepted {
                // Accepted already: accepting again approves nobody new (a member listed since is held).
                return try await store.read { [store] db in
                    try store.channelTrustStore.loadMembers(channelID: channel.id.rawValue, db).values.filter { $0.state == .approved }.map(\.userID)
                }.sorted().map { UserID(stored: $0) }
            }
            accepted = try await channelDirectory.members(of: channel, refresh: true).map(\.userID).filter { $0 != own.rawValue }
            try await approveMembers(accepted, in: channel.id)
        }
        try await store.write { [store] db in try store.channelTrustStore.storeStanding(.accepted, channelID: channel.id.rawValue, db) }
        broadcaster.publish(.channelsChanged)
        // The DM's waiting messages are decrypted now (the participant's) or refused (anyone else's).
        _ = try await pipeline.redrivePending()
        // A group's acceptance is announced for our other devices, which accept it with the same
        // members (other members' apps have nothing to do with it).
        if !channel.isDM, try await hasOtherOwnDevices() { await announce(.accepted, accepted, in: channel.id) }
        return accepted.map { UserID(stored: $0) }
    }

    /// Declines a request: nothing is ever sent in it (until ``acceptChannel(_:)``). For a DM
    /// with a candidate, the candidate is declined instead and the next one is offered.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, key store errors.
    public func declineChannel(_ channelID: ChannelID) async throws {
        let channel = try await channelDirectory.channel(id: channelID)
        let own = userID
        let time = configuration.now()
        try await store.write { [store] db in
            let trust = store.channelTrustStore
            if channel.isDM, try store.recipientStore.loadParticipants(channelID: channel.id.rawValue, db).isEmpty,
               let candidate = try trust.loadCandidate(channelID: channel.id.rawValue, ownUserID: own.rawValue, db) {
                try trust.storeMembers([MemberStanding(channelID: channel.id.rawValue, userID: candidate, state: .declined)], at: time, db)
            } else {
                try trust.storeStanding(.declined, channelID: channel.id.rawValue, db)
            }
        }
        broadcaster.publish(.channelsChanged)
    }

    /// A DM's other participant, as fixed on this device (`nil` while it is a request): the
    /// app labels a DM by it, never by the server's member list.
    /// - Throws: key store errors.
    public func directMessageParticipant(_ channelID: ChannelID) async throws -> UserID? {
        let own = userID
        let fixed = try await store.read { [store] db in try store.recipientStore.loadParticipants(channelID: channelID.rawValue, db) }
        return fixed.count == 2 ? fixed.subtracting([own.rawValue]).first.map { UserID(stored: $0) } : nil
    }
}
