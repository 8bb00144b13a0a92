@_spi(StoreInternals) import E2EEKeyStore

/// What processing one message decided: its outcome, the write that stores it (committed with
/// the rest of the lane's chunk), the waiting keys it satisfies, and what to tell the app.
struct ProcessingStep: Sendable {
    /// The outcome (a payload-id duplicate found at commit time replaces it).
    var outcome: ReceiveOutcome
    /// The store change; nil when nothing is stored (own message, ignored input).
    var write: ReceiveWrite?
    /// Waiting keys (``WaitingKey``) whose pending rows can be re-driven once this commits.
    var unlocks: [String] = []
    /// The sender-key state this step advanced or installed (its final state is serialised
    /// once per chunk, onto the chunk's last write that touched it).
    var senderKeyAddress: SenderKeyAddress?
    /// The session (user, device) this step advanced, likewise.
    var sessionOwner: (userID: UserID, deviceID: DeviceID)?
    /// A device pinned for the first time by this message (user, device).
    var newPin: (userID: UserID, deviceID: DeviceID)?
    /// Whether the message had no row before.
    var isNewRow: Bool
    /// Whether the row belongs to the app's timeline (not a control message).
    var isTimelineRow: Bool
    /// The channel.
    var channelID: ChannelID
    /// The (user, device) whose keys authenticated a decrypted message (what a control
    /// payload's events name).
    var sender: (userID: UserID, deviceID: DeviceID)?
    /// The link message this step opened, handed to the account's linking once it commits.
    var linkMessage: OpenedLinkMessage?
}

/// A refusal inside processing: becomes an undecryptable row (or a refused edit).
struct ReceiveRefusal: Error {
    var reason: UndecryptableReason
    /// A changed identity the refusal records (the pin is kept).
    var identityChange: RemoteIdentityClaim?
    /// The ratchet restart the refusal asks for (too far ahead, docs/spec/protocol.md §3.17).
    var sessionRestart: SessionRestartRequest?

    init(_ reason: UndecryptableReason, identityChange: RemoteIdentityClaim? = nil, sessionRestart: SessionRestartRequest? = nil) {
        self.reason = reason
        self.identityChange = identityChange
        self.sessionRestart = sessionRestart
    }
}
