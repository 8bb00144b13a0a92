/// One message of a channel's timeline as the app shows it. The text comes from the stored
/// payload JSON (received and own messages alike); unreadable states carry no text.
///
/// Our own messages the server has not taken yet are rows too, **local echoes**
/// (``isLocalEcho``): their text comes from the outbox's sealed copy and their ``delivery`` is
/// the outbox state (`.queued`, `.sending`, `.failed`), so an app keeps no copy of a pending
/// message. When the server takes one (its 201) the echo is replaced by the posted row, which
/// carries the same ``localID`` (matrix-rust-sdk's timeline does the same with a local echo
/// keyed by its transaction id).
public struct TimelineItem: Sendable, Equatable {
    /// Where the message is.
    public enum State: Sendable, Equatable {
        /// Decrypted (or our own): ``TimelineItem/text`` holds the text.
        case decrypted
        /// Waiting for a key; it may still become readable.
        case pending
        /// Refused, for this reason.
        case undecryptable(UndecryptableReason)
        /// Sent before this device was added: its keys went only to the devices its sender knew
        /// then — a DM envelope that does not address this device, or a group message whose
        /// sender key never reaches it — so this device was never meant to read it. Not an
        /// error, and not worth waiting for — show it as history from before this device
        /// (another of the user's devices can read it). A message sent later that still leaves
        /// this device out is ``sentBeforeApproval`` (a DM) or stays `.pending`. "Before"
        /// compares the server's `created_at` with this device's clock when it was set up, so a
        /// skew between the two moves the boundary by as much.
        case sentBeforeThisDevice
        /// A DM envelope sent after this device was set up that does not address it: its sender had
        /// not approved this device yet (a new device is held until each contact approves it,
        /// docs/spec/protocol.md §5.12) — or the server left this device's entry out, which only
        /// the sender could tell. Not an error to show as such: later messages reach this device
        /// once the sender approves it; another of the user's devices can read this one.
        case sentBeforeApproval
        /// `protocol_version` 2 content that is not our envelope (docs/spec/sync.md 8).
        case unsupportedFormat
        /// Plaintext from another client (`protocol_version` 1): never presented as encrypted.
        case unencrypted
        /// Deleted on the server.
        case deleted
    }

    /// The server message id. A local echo (``isLocalEcho``) has none yet: it carries its
    /// outbox id here (the same as ``localID``), which is not a server id — act on an echo by
    /// its ``localID`` (``Account/delete(localID:)``, ``Account/retry(_:)``,
    /// ``Account/cancelOutboxEntry(_:)``).
    public var messageID: MessageID
    /// The channel.
    public var channelID: ChannelID
    /// The sender user, as the server names it (nil on a local echo).
    public var senderUserID: UserID?
    /// The sender device, as the server names it (checked against the envelope once decrypted;
    /// nil on a local echo).
    public var senderDeviceID: DeviceID?
    /// The server's `created_at`; the timeline is ordered by `(createdAt, messageID)`. A local
    /// echo has this device's time of queueing instead, and comes after every posted row.
    public var createdAt: ServerTimestamp
    /// The state.
    public var state: State
    /// The text (decrypted, own and unencrypted messages).
    public var text: String?
    /// The message this one answers (from the payload: authoritative over the server's field).
    public var replyTo: MessageID?
    /// When the sender last edited it.
    public var editedAt: ServerTimestamp?
    /// `true` for a message this device sent.
    public var isOwn: Bool
    /// The server no longer has it (its `message.delete` event, or missing from two reads a few
    /// seconds apart): shown as "removed from the server", collapsed by default. Only the
    /// sender deletes, so the text stays; the mark goes if the server returns the message.
    public var removedFromServer: Bool
    /// `true` when this device does not trust its sender here (docs/spec/protocol.md §5.11–§5.12,
    /// §6.7): a device held or declined in any channel, a device of a user this device knows
    /// that is not among the devices it trusts for that user (one the server added), a group
    /// member listed after this device created or accepted the group and not approved, or a user
    /// not compared yet (``senderNotComparedYet``). Show such messages flagged.
    public var senderHeld = false
    /// `true` for a `.pending` message in a channel this device has not accepted (a request, or
    /// declined, docs/spec/protocol.md §5.9): it waits for the user's acceptance
    /// (``Account/acceptChannel(_:)``), not for a key — show "accept this conversation to read
    /// it", not "waiting for this message's keys".
    public var waitsForAcceptance = false
    /// `true` when its sender has no member standing in this group yet: the message came before
    /// any member read listed them (a joiner). Flagged (``senderHeld`` is `true` too) until the
    /// next member read or send compares them.
    public var senderNotComparedYet = false
    /// For our own messages, their delivery state from the outbox: on a local echo
    /// (``isLocalEcho``) `.queued`, `.sending` or `.failed` (retry it with ``Account/retry(_:)``);
    /// on a posted row, joined by server id, `.sent` (the server took it) or `.delivered` (our
    /// own copy came back). `nil` for other senders' messages, for own messages whose outbox
    /// entry is gone (sent from another device, or before a restore), and for deleted messages
    /// (a deleted row shows no tick).
    public var delivery: OutboxState?
    /// The outbox id of our own message sent from this device (``SendReport/localID``), on its
    /// local echo and on the posted row that replaced it: how an app matches the two. `nil` for
    /// other senders' messages and own messages this device's outbox no longer knows.
    public var localID: OutboxEntryID?
    /// `true` for a local echo: our own message the server has not taken yet, shown from the
    /// outbox (``delivery`` says `.queued`, `.sending` or `.failed`). Its ``messageID`` is its
    /// outbox id; it is replaced by the posted row when the server takes it, and leaves the
    /// timeline when cancelled.
    public var isLocalEcho = false
    /// For a **transferred** message — one whose text this device did not decrypt itself but
    /// took from its primary's history transfer when it was linked (docs/spec/protocol.md
    /// §11.9) — the primary's device id; `nil` for every message this device read itself. Show
    /// such messages labelled ("from your other device"): the primary vouches for the text, the
    /// sender's signature does not. When this device later decrypts the message itself the text
    /// is replaced and the label goes.
    public var transferredFrom: DeviceID?

    /// Creates the value.
    public init(messageID: MessageID, channelID: ChannelID, senderUserID: UserID?, senderDeviceID: DeviceID?, createdAt: ServerTimestamp,
                state: State, text: String?, replyTo: MessageID?, editedAt: ServerTimestamp?, isOwn: Bool, removedFromServer: Bool = false,
                delivery: OutboxState? = nil, localID: OutboxEntryID? = nil, isLocalEcho: Bool = false) {
        self.messageID = messageID
        self.channelID = channelID
        self.senderUserID = senderUserID
        self.senderDeviceID = senderDeviceID
        self.createdAt = createdAt
        self.state = state
        self.text = text
        self.replyTo = replyTo
        self.editedAt = editedAt
        self.isOwn = isOwn
        self.removedFromServer = removedFromServer
        self.delivery = delivery
        self.localID = localID
        self.isLocalEcho = isLocalEcho
    }

    /// Where the item sorts, for paging further back.
    public var cursor: TimelinePosition { TimelinePosition(createdAt: createdAt, messageID: messageID) }
}

/// A position in a channel's timeline: `(created_at, id)`.
public struct TimelinePosition: Sendable, Hashable {
    /// The server's `created_at`.
    public var createdAt: ServerTimestamp
    /// The server message id.
    public var messageID: MessageID

    /// Creates the value.
    public init(createdAt: ServerTimestamp, messageID: MessageID) {
        self.createdAt = createdAt
        self.messageID = messageID
    }
}
