import E2EEKeyStore

/// A channel this device learned from the server and has not accepted: nothing is sent in it
/// until the app accepts it (docs/spec/protocol.md §5).
public struct ChannelRequest: Sendable, Equatable {
    /// The channel.
    public var channel: ChatChannel
    /// For a DM: the user who would become its participant on acceptance — the earliest other
    /// user whose message waits in it (or was decrypted there) and whose sending device the
    /// server lists for that user (`nil` while there is none).
    public var candidate: UserID?
    /// For a group: the members the server listed when the request was read (accepting
    /// approves exactly these; anyone listed later is held).
    public var members: [UserID]

    /// Creates the value.
    public init(channel: ChatChannel, candidate: UserID?, members: [UserID]) {
        self.channel = channel
        self.candidate = candidate
        self.members = members
    }
}

extension Account {
    /// How many of a DM request's earliest senders are checked for a listed sending device.
    static let candidateLookahead = 8

    /// The channels this device did not create, open or accept: requests, oldest first. A
    /// group's members are re-read from the server. What each request is returned as is kept
    /// as what the app showed: ``acceptChannel(_:)`` accepts exactly that.
    /// - Throws: ``ServerError``, key store errors.
    public func channelRequests() async throws -> [ChannelRequest] {
        let pins = try await store.read { [store] db in try store.channelTrustStore.loadPins(standing: .request, db) }
        var requests: [ChannelRequest] = []
        for pin in pins {
            guard let channel = try? await channelDirectory.channel(id: ChannelID(stored: pin.channelID)) else { continue }
            requests.append(try await readRequest(channel))
        }
        return requests
    }

    /// Reads one request as the app is about to show it, and records that view.
    private func readRequest(_ channel: ChatChannel) async throws -> ChannelRequest {
        let request: ChannelRequest
        if channel.isDM {
            request = ChannelRequest(channel: channel, candidate: try await offeredCandidate(in: channel.id), members: [])
        } else {
            let members = try await channelDirectory.members(of: channel, refresh: true).map { UserID(stored: $0.userID) }
            request = ChannelRequest(channel: channel, candidate: nil, members: members)
        }
        let time = configuration.now()
        try await store.write { [store] db in
            try store.channelTrustStore.storeRequestView(channelID: channel.id.rawValue, candidate: request.candidate?.rawValue,
                                                         members: request.members.map(\.rawValue), at: time, db)
        }
        return request
    }

    /// A DM request's candidate: the earliest other user who wrote in it whose sending device
    /// of that message the server lists for that user (docs/spec/protocol.md §5.9) — a message
    /// the server labels with another user's id, from a device not theirs, offers nobody.
    func offeredCandidate(in channelID: ChannelID) async throws -> UserID? {
        let own = userID
        let candidates = try await store.read { [store] db in
            try store.channelTrustStore.loadCandidates(channelID: channelID.rawValue, ownUserID: own.rawValue, limit: Self.candidateLookahead, db)
        }
        for candidate in candidates {
            let user = UserID(stored: candidate.userID)
            guard let device = candidate.deviceID, let listed = try? await directory.devices(of: user) else { continue }
            if listed.contains(where: { $0.deviceID.rawValue == device }) { return user }
        }
        return nil
    }

    /// Accepts a request as ``channelRequests()`` (or ``channelRequestUpdates()``) last returned it to the app (read now when it
    /// never was): a DM's participant is the candidate shown, a group's approved members the
    /// members shown — anyone the server lists besides them is held until approved. A group
    /// accepted (or created) here already stays as it is. Returns the DM's participant, or the
    /// group's approved members.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, ``MessagingError/noCandidate(channelID:)``
    ///   for a DM no other user wrote in yet, ``MessagingError/candidateChanged(channelID:shown:)``,
    ///   ``ServerError`` (members), key store errors.
    @discardableResult
    public func acceptChannel(_ channelID: ChannelID) async throws -> [UserID] {
        let channel = try await channelDirectory.channel(id: channelID)
        let view = try await store.read { [store] db in try store.channelTrustStore.loadRequestView(channelID: channel.id.rawValue, db) }
        // A DM shown without a candidate showed nobody: it is read again (the tool and the app
        // then show whom they accepted).
        if let view, !channel.isDM || view.candidate != nil {
            return try await acceptShown(ChannelRequest(channel: channel, candidate: view.candidate.map { UserID(stored: $0) },
                                                   members: view.members.map { UserID(stored: $0) }))
        }
        return try await acceptShown(try await readRequest(channel))
    }

    /// Accepts `request` exactly as the app showed it: a DM with its ``ChannelRequest/candidate``
    /// (still offered: declined or gone, it fails with
    /// ``MessagingError/candidateChanged(channelID:shown:)``), a group with its
    /// ``ChannelRequest/members`` approved and anyone else the server lists held. Returns as
    /// ``acceptChannel(_:)``.
    /// - Throws: as ``acceptChannel(_:)``.
    @discardableResult
    public func accept(_ request: ChannelRequest) async throws -> [UserID] {
        try await acceptShown(ChannelRequest(channel: try await channelDirectory.channel(id: request.channel.id), candidate: request.candidate,
                                        members: request.members))
    }

    private func acceptShown(_ request: ChannelRequest) async throws -> [UserID] {
        return try await trustDecision {
            let channel = request.channel
            let own = userID
            let accepted: [String]
            if channel.isDM {
                let state = try await store.read { [store] db in
                    (try store.recipientStore.loadParticipants(channelID: channel.id.rawValue, db).subtracting([own.rawValue]).first,
                     try store.channelTrustStore.loadCandidates(channelID: channel.id.rawValue, ownUserID: own.rawValue, limit: .max, db).map(\.userID))
                }
                if let fixed = state.0 {
                    accepted = [fixed]
                } else {
                    guard let shown = request.candidate else { throw MessagingError.noCandidate(channelID: channel.id) }
                    guard state.1.contains(shown.rawValue) else { throw MessagingError.candidateChanged(channelID: channel.id, shown: shown) }
                    try await recipientGate.fixParticipants(channelID: channel.id, otherUser: shown)
                    accepted = [shown.rawValue]
                }
            } else {
                let pin = try await store.read { [store] db in try store.channelTrustStore.loadPin(channelID: channel.id.rawValue, db) }
                if let pin, pin.standing == .created || pin.standing == .accepted {
                    // Accepted already: accepting again approves nobody new (a member listed since is held).
                    return try await store.read { [store] db in
                        try store.channelTrustStore.loadMembers(channelID: channel.id.rawValue, db).values.filter { $0.state == .approved }.map(\.userID)
                    }.sorted().map { UserID(stored: $0) }
                }
                accepted = Array(Set(request.members.map(\.rawValue))).filter { $0 != own.rawValue }.sorted()
                try await approveMembers(accepted, in: channel.id)
            }
            try await store.write { [store] db in
                try store.channelTrustStore.storeStanding(.accepted, channelID: channel.id.rawValue, db)
                try store.channelTrustStore.removeRequestView(channelID: channel.id.rawValue, db)
            }
            broadcaster.publish(.channelsChanged)
            // The DM's waiting messages are decrypted now (the participant's) or refused (anyone else's).
            _ = try await pipeline.redrivePending()
            // A group's acceptance is announced for our other devices, which accept it with the same
            // members (other members' apps have nothing to do with it).
            if !channel.isDM, try await hasOtherOwnDevices() { await announce(.accepted, accepted, in: channel.id) }
            return accepted.map { UserID(stored: $0) }
        }
    }

    /// Declines a request: nothing is ever sent in it (until ``acceptChannel(_:)``).
    /// For a DM with a candidate, the candidate is declined instead and the next one is offered.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, key store errors.
    public func declineChannel(_ channelID: ChannelID) async throws {
        try await trustDecision {
            let channel = try await channelDirectory.channel(id: channelID)
            let own = userID
            let time = configuration.now()
            try await store.write { [store] db in
                let trust = store.channelTrustStore
                // The candidate declined is the one the app showed, when it was shown one.
                let shown = try trust.loadRequestView(channelID: channel.id.rawValue, db)?.candidate
                if channel.isDM, try store.recipientStore.loadParticipants(channelID: channel.id.rawValue, db).isEmpty,
                   let candidate = try shown ?? trust.loadCandidate(channelID: channel.id.rawValue, ownUserID: own.rawValue, db) {
                    try trust.storeMembers([MemberStanding(channelID: channel.id.rawValue, userID: candidate, state: .declined)], at: time,
                                           decidedAt: time.milliseconds, db)
                } else {
                    try trust.storeStanding(.declined, channelID: channel.id.rawValue, db)
                }
                try trust.removeRequestView(channelID: channel.id.rawValue, db)
            }
            broadcaster.publish(.channelsChanged)
        }
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
