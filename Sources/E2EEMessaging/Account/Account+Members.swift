import E2EEKeyStore

/// A user listed in a group after this device created or accepted it, held until the app
/// approves it (docs/spec/protocol.md §5).
public struct HeldMember: Sendable, Equatable, Hashable {
    /// The group.
    public var channelID: ChannelID
    /// The user.
    public var userID: UserID

    /// Creates the value.
    public init(channelID: ChannelID, userID: UserID) {
        self.channelID = channelID
        self.userID = userID
    }
}

extension Account {
    /// Every member held back from a group's keys, waiting for ``approveMember(_:in:)`` or
    /// ``declineMember(_:in:)``.
    /// - Throws: key store errors.
    public func pendingMembers() async throws -> [HeldMember] {
        try await store.read { [store] db in try store.channelTrustStore.loadMembers(state: .held, db) }.map {
            HeldMember(channelID: ChannelID(stored: $0.channelID), userID: UserID(stored: $0.userID))
        }
    }

    /// Approves a member of a group (held, declined, or not listed yet): from our next message
    /// on, its devices receive keys — those this device knows, or on first contact the ones
    /// listed then; never an earlier key state. The approval is announced in the group
    /// (docs/spec/protocol.md §5.15): our other devices apply it, other members are prompted.
    /// - Throws: ``MessagingError/unknownChannel(_:)``, key store errors.
    public func approveMember(_ userID: UserID, in channelID: ChannelID) async throws {
        try await trustDecision {
            let channel = try await channelDirectory.channel(id: channelID)
            try await approveMembers([userID.rawValue], in: channel.id)
            broadcaster.recipientStandings.signal()
            await announce(.approved, [userID.rawValue], in: channel.id)
        }
    }

    /// Declines a member of a group: none of its devices gets keys until it is approved (a
    /// sender key it held is renewed before our next message). Announced like an approval.
    /// - Throws: ``MessagingError/unknownMember(userID:)`` when no standing for it exists there,
    ///   key store errors.
    public func declineMember(_ userID: UserID, in channelID: ChannelID) async throws {
        try await trustDecision {
            let user = userID
            let channel = channelID
            let time = configuration.now()
            try await store.write { [store] db in
                guard try store.channelTrustStore.loadMembers(channelID: channel.rawValue, db)[user.rawValue] != nil else {
                    throw MessagingError.unknownMember(userID: user)
                }
                // Its devices stop being recipients at the next send's comparison, which reports them
                // removed (and a group's sender key is renewed).
                try store.channelTrustStore.storeMembers([MemberStanding(channelID: channel.rawValue, userID: user.rawValue, state: .declined)], at: time,
                                                         decidedAt: time.milliseconds, db)
            }
            broadcaster.recipientStandings.signal()
            await announce(.declined, [user.rawValue], in: channel)
        }
    }

    /// Records `users` as approved members of `channelID` (this device's own decision, stamped
    /// with this device's clock: an older announced decision does not undo it).
    func approveMembers(_ users: [String], in channelID: ChannelID) async throws {
        let time = configuration.now()
        let standings = users.map { MemberStanding(channelID: channelID.rawValue, userID: $0, state: .approved) }
        try await store.write { [store] db in try store.channelTrustStore.storeMembers(standings, at: time, decidedAt: time.milliseconds, db) }
    }
}
