import E2EEKeyStore

/// The pure member rule of docs/spec/protocol.md §5 for groups: who this device approved as a
/// member against who the server lists now. A user listed after this device created or
/// accepted the group is held until the app approves it, whatever the channel's policy; an
/// approved member absent from two reads at least ``goneAfter`` apart is gone, and coming back
/// is new. No I/O; ``RecipientGate`` loads the input and stores the updates.
enum MemberDecision {
    /// How long an approved member must stay unlisted (over two reads) to count as gone, in
    /// microseconds: one read that leaves a member out does not cost it its approval.
    static let goneAfter: Int64 = 2_000_000

    /// What to do.
    struct Outcome: Sendable, Equatable {
        /// Listed users whose devices may receive keys (approved members and our own user).
        var approved: [String] = []
        /// Listed users held now for the first time (surfaced once).
        var newlyHeld: [String] = []
        /// Every listed user still held (new ones included).
        var held: [String] = []
        /// Standings to store.
        var updates: [MemberStanding] = []
    }

    /// Applies the rule to the users `listed` in `channelID` now.
    static func decide(channelID: ChannelID, listed: [String], ownUserID: UserID, standings: [String: MemberStanding],
                       now: StoreTime) -> Outcome {
        var outcome = Outcome()
        let listedSet = Set(listed)
        for user in listedSet.sorted() {
            guard user != ownUserID.rawValue else {
                outcome.approved.append(user)
                continue
            }
            switch standings[user]?.state {
            case .approved?:
                outcome.approved.append(user)
                if standings[user]?.missingSince != nil {
                    outcome.updates.append(MemberStanding(channelID: channelID.rawValue, userID: user, state: .approved))
                }
            case .held?:
                outcome.held.append(user)
            case .declined?:
                continue
            case .gone?, nil:
                outcome.held.append(user)
                outcome.newlyHeld.append(user)
                outcome.updates.append(MemberStanding(channelID: channelID.rawValue, userID: user, state: .held))
            }
        }
        for standing in standings.values.sorted(by: { $0.userID < $1.userID })
            where standing.state == .approved && !listedSet.contains(standing.userID) {
            if let since = standing.missingSince {
                if now.microseconds - since.microseconds >= goneAfter {
                    outcome.updates.append(MemberStanding(channelID: channelID.rawValue, userID: standing.userID, state: .gone))
                }
            } else {
                outcome.updates.append(MemberStanding(channelID: channelID.rawValue, userID: standing.userID, state: .approved, missingSince: now))
            }
        }
        return outcome
    }
}
