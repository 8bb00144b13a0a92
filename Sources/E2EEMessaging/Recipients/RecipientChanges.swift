/// What one send found about its channel's recipients (docs/spec/protocol.md §5), surfaced before any
/// key went out: the app shows it, `e2ee-tool send` prints it.
public struct RecipientChanges: Sendable, Equatable {
    /// Members or devices not sent keys before, surfaced by this send: those in ``held`` got
    /// nothing, the others got this message.
    public var surfaced: [RecipientDevice]
    /// Every device this send held back (new ones and ones still waiting for approval).
    public var held: [RecipientDevice]
    /// Devices that were recipients and are no longer listed.
    public var removed: [RecipientDevice]
    /// Users listed in a DM who are not its participants (never recipients), first seen now.
    public var unexpectedMembers: [UserID]
    /// Users listed in a group after this device created or accepted it and not approved yet
    /// (``Account/approveMember(_:in:)``): none of their devices got anything.
    public var heldMembers: [UserID] = []
    /// How many devices the message was encrypted to.
    public var recipientCount: Int
    /// Users with user-key certificates who got nothing: conflicted, without a verified device,
    /// or awaiting acceptance of a key change (docs/spec/protocol.md §10.5, §10.7, §10.17).
    public var unresolvedUsers: [UnresolvedUser] = []

    /// Creates the value.
    public init(surfaced: [RecipientDevice] = [], held: [RecipientDevice] = [], removed: [RecipientDevice] = [],
                unexpectedMembers: [UserID] = [], recipientCount: Int = 0) {
        self.surfaced = surfaced
        self.held = held
        self.removed = removed
        self.unexpectedMembers = unexpectedMembers
        self.recipientCount = recipientCount
    }

    /// Nothing surfaced, held, removed or unexpected.
    public var isEmpty: Bool { surfaced.isEmpty && held.isEmpty && removed.isEmpty && unexpectedMembers.isEmpty && heldMembers.isEmpty
        && unresolvedUsers.isEmpty }
}

/// A user a send left out because their user key is unresolved.
public struct UnresolvedUser: Sendable, Equatable {
    /// The user.
    public var userID: UserID
    /// Why.
    public var reason: UnresolvedUserKey

    /// Creates the value.
    public init(userID: UserID, reason: UnresolvedUserKey) {
        self.userID = userID
        self.reason = reason
    }

    /// The user a send left out for `error`, when it is one of the unresolved-key errors.
    init?(_ error: MessagingError) {
        switch error {
        case .userKeyConflict(let user): self.init(userID: user, reason: .conflicted)
        case .noVerifiedDevice(let user): self.init(userID: user, reason: .noVerifiedDevice)
        case .userKeyChangePending(let user): self.init(userID: user, reason: .changePending)
        default: return nil
        }
    }

    /// The typed error a DM to this user fails with.
    var error: MessagingError {
        switch reason {
        case .conflicted: .userKeyConflict(userID: userID)
        case .noVerifiedDevice: .noVerifiedDevice(userID: userID)
        case .changePending: .userKeyChangePending(userID: userID)
        }
    }
}
