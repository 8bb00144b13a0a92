import E2EEKeyStore
import Foundation

/// Everything an account reports to the app, in order, on ``Account/events()``
/// (docs/spec/sync.md "Events to the app"). Only public data: ids, states and reasons, never plaintexts
/// or keys (the app reads plaintexts from the timeline API).
public enum AccountEvent: Sendable, Equatable {
    /// The timeline changes of one committed batch, in the order they were made (never empty):
    /// one event per commit, however many messages it stored (``timelineChanges``).
    case timeline([TimelineChange])
    /// An outgoing message moved to a new delivery state.
    case delivery(DeliveryChange)
    /// Someone started or stopped typing.
    case typing(userID: UserID, channelID: ChannelID, started: Bool)
    /// The channel list changed (created, joined, left, announced by `channel.new`).
    case channelsChanged
    /// The realtime connection changed state.
    case connection(ConnectionState)
    /// A remote identity event (new device, changed identity, unexpected member).
    case identity(IdentityEvent)
    /// Key maintenance ran (one-time prekeys replenished, signed prekey rotated).
    case keyMaintenance(KeyMaintenanceReport)
    /// The server session ended (refresh refused): tokens are wiped, keys are kept.
    case sessionEnded
    /// Input from the server was refused and skipped (a malformed frame, a forged message);
    /// `reason` is public text and never contains the input.
    case inputRefused(reason: String)
    /// Catching up one channel (or the pending queue, or key maintenance) failed; it is
    /// recorded (``Account/channelSyncFailures()``) and everything else went on (docs/spec/sync.md
    /// guarantee 10).
    case channelSyncFailed(ChannelSyncFailure)
    /// The server holds a message this device sent that the store does not know (or an own
    /// group envelope at or beyond the current sending state): the store was restored or
    /// copied (docs/spec/protocol.md §3, T18). Sessions, sender keys and prekeys are renewed before the
    /// next send.
    case rollbackDetected(channelID: ChannelID, messageID: MessageID)
    /// A member's signed announcement in a group (docs/spec/protocol.md §5.15): a prompt, or
    /// this account's own decision applied here.
    case announcement(ChannelAnnouncement)
    /// This subscriber fell behind and lost events (its buffer was full): re-read what the app
    /// shows — timelines, delivery states, pending lists — from the account. Comes once per
    /// gap, after it; what follows is live again.
    case reloadNeeded
    /// This device's clock read more than a day below the highest reading it had seen
    /// (docs/spec/protocol.md §10.19): certificates past their end by that highest reading stay
    /// expired until the user confirms the clock (``Account/confirmClock()``).
    case clockWentBack
    /// This device's clock and the server's disagree by more than a day at a post, or a key
    /// change the clock would open is not confirmed by any post (§10.19): no key change is
    /// offered until a post agrees or the user confirms the clock.
    case clockSuspect
    /// Our own user key (docs/spec/protocol.md §10.12–§10.13): renewals, warnings, a stop.
    case linking(LinkEvent)
}

extension AccountEvent {
    /// The timeline changes this event carries: those of a ``timeline(_:)`` event, none for any
    /// other.
    public var timelineChanges: [TimelineChange] {
        if case .timeline(let changes) = self { return changes }
        return []
    }
}

/// A change in a channel's timeline.
public struct TimelineChange: Sendable, Equatable {
    /// What happened to the message.
    public enum Kind: Sendable, Equatable {
        /// A new row (any state).
        case inserted
        /// A pending message was decrypted.
        case decrypted
        /// The message was edited by its sender.
        case edited
        /// The message was deleted.
        case deleted
        /// The message cannot be decrypted, for this public reason.
        case undecryptable(reason: UndecryptableReason)
        /// The message waits for a key.
        case pending
        /// The server no longer has the message (a hint: its text stays, see
        /// ``TimelineItem/removedFromServer``).
        case removedFromServer
        /// The server returned a message marked removed: the mark is gone.
        case backOnServer
        /// Our own message's delivery state changed (``TimelineItem/delivery``): its copy came
        /// back from the server, sent → delivered.
        case delivered
        /// A local echo changed (our own message not posted yet, ``TimelineItem/isLocalEcho``;
        /// the change's `messageID` is its outbox id): its outbox state moved (sending, failed,
        /// queued again); or it left the timeline — posted (the posted row's ``inserted`` comes
        /// in the same event) or cancelled. A new echo comes as ``inserted``.
        case localEcho
    }

    /// The channel.
    public var channelID: ChannelID
    /// The server message id; for a local echo (``Kind/localEcho``, or ``Kind/inserted`` of a
    /// new one), its outbox id as ``TimelineItem/messageID`` carries it.
    public var messageID: MessageID
    /// What happened.
    public var kind: Kind

    /// Creates the value.
    public init(channelID: ChannelID, messageID: MessageID, kind: Kind) {
        self.channelID = channelID
        self.messageID = messageID
        self.kind = kind
    }
}

/// An outbox entry's delivery state changed. Entries the app never created report too (a
/// sender key distribution, an announcement, the `DELETE` of a server copy): ``purpose`` says
/// what each is, and only ``OutboxPurpose/message`` entries are messages of the timeline.
public struct DeliveryChange: Sendable, Equatable {
    /// The outbox id (``SendReport/localID``; a local echo's ``TimelineItem/localID``).
    public var localID: OutboxEntryID
    /// The channel.
    public var channelID: ChannelID
    /// The new state.
    public var state: OutboxState
    /// The server id, once known (for an edit or a delete: the edited or deleted message).
    public var serverMessageID: MessageID?
    /// What the entry is for: a message the app sent, an edit, a tombstone, the server copy's
    /// delete, a sender key distribution or an announcement.
    public var purpose: OutboxPurpose

    /// Creates the value.
    public init(localID: OutboxEntryID, channelID: ChannelID, state: OutboxState, serverMessageID: MessageID?, purpose: OutboxPurpose = .message) {
        self.localID = localID
        self.channelID = channelID
        self.state = state
        self.serverMessageID = serverMessageID
        self.purpose = purpose
    }
}

/// Something about a remote identity the user should see (docs/spec/protocol.md §5, §7).
public enum IdentityEvent: Sendable, Equatable {
    /// A device not seen before for this user (pinned now, trust on first use).
    case newDevice(userID: UserID, deviceID: DeviceID)
    /// A pinned device presented a different identity: refused, recorded, never trusted silently.
    case identityChanged(userID: UserID, deviceID: DeviceID)
    /// A device the user had disappeared from the server's list (its user is still listed;
    /// seen when a send compares recipients, docs/spec/protocol.md §5 — once per channel that sent to
    /// it; a device left out because its identity changed counts as gone).
    case deviceRemoved(userID: UserID, deviceID: DeviceID)
    /// A member the user did not expect is in a channel (e.g. someone joined a DM).
    case unexpectedMember(channelID: ChannelID, userID: UserID)
    /// A member or device not sent keys before in this channel (a new member, one who left and
    /// came back, a new device of a peer or of our own user), surfaced before any key goes to
    /// it; `held`: the channel's policy keeps keys from it until the app approves it.
    case recipientAdded(channelID: ChannelID, userID: UserID, deviceID: DeviceID, held: Bool)
    /// A device that received (or was held from) this channel's keys is no longer listed: its
    /// member left, or the device is gone. A group's sender key is renewed.
    case recipientRemoved(channelID: ChannelID, userID: UserID, deviceID: DeviceID)
    /// A listing or event named a channel with another kind than the one this device pinned
    /// when it first learned it (a DM as a group, or the reverse): surfaced once, never followed.
    case channelKindContradicted(channelID: ChannelID)
    /// A user listed in a group after this device created or accepted it: it gets nothing until
    /// the app approves it (``Account/approveMember(_:in:)``), whatever the channel's policy.
    case memberHeld(channelID: ChannelID, userID: UserID)
    /// A device of a user with a pinned key became linked under it (docs/spec/protocol.md §10.7):
    /// it receives keys wherever the user's devices do, with no approval. Surfaced once.
    case linkedDeviceAdded(userID: UserID, deviceID: DeviceID)
    /// A device that was linked under its user's pinned key no longer is: it gets nothing more,
    /// and groups it was in renew their keys.
    case deviceUnlinked(userID: UserID, deviceID: DeviceID, reason: DeviceUnlinkReason)
    /// A user without a key adopted one: every device trusted for them carries it (§10.6). The
    /// user's safety number changes.
    case userKeyAdopted(userID: UserID, key: UserKey)
    /// Another key than the pinned one is listed for the user, before any change is due (§10.17).
    case otherUserKeyListed(userID: UserID, key: UserKey)
    /// The user's key changed and the change is due (§10.17): nothing goes to the new key (`to`;
    /// `nil`: the user no longer uses one) until the app accepts
    /// (``Account/acceptUserKeyChange(of:)``). `lastSeen` is when this device last read the old
    /// key; `vouched` when a device linked under the old key carries the new one.
    case userKeyChanged(userID: UserID, to: UserKey?, lastSeen: Date, vouched: Bool, wasVerified: Bool)
    /// The user's devices carry current certificates under several keys and none is pinned:
    /// nothing is sent to the user until the app pins one after comparing safety numbers.
    case userKeyConflict(userID: UserID)
    /// No listed device of the user is linked under the pinned key: nothing is sent to the user.
    case noVerifiedDevice(userID: UserID)
    /// A listed record of a device of a user with a pinned key does not verify: the device is
    /// skipped (unlinked) and the send goes on.
    case invalidCertificate(userID: UserID, deviceID: DeviceID)
}

/// What a key maintenance run did.
public struct KeyMaintenanceReport: Sendable, Equatable {
    /// One-time prekeys generated and uploaded.
    public var oneTimePrekeysUploaded: Int
    /// Whether a new signed prekey was made and published.
    public var signedPrekeyRotated: Bool
    /// The server's one-time-prekey count that started a replenishment (`keys.low_otp`'s
    /// `remaining`), when the server told it.
    public var serverCountBefore: Int?
    /// The server's count after the upload, as it answered.
    public var serverCountAfter: Int?

    /// Creates the value.
    public init(oneTimePrekeysUploaded: Int, signedPrekeyRotated: Bool, serverCountBefore: Int? = nil, serverCountAfter: Int? = nil) {
        self.oneTimePrekeysUploaded = oneTimePrekeysUploaded
        self.signedPrekeyRotated = signedPrekeyRotated
        self.serverCountBefore = serverCountBefore
        self.serverCountAfter = serverCountAfter
    }
}
