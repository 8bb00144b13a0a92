import E2EECrypto

/// What the messaging layer refuses, typed. Texts are public: ids and reasons, never secrets.
public enum MessagingError: Error, Sendable, Equatable {
    /// The store has no account: register or log in first.
    case noAccount
    /// The store already holds another device's account and keys: a store is one device.
    case storeBelongsToAnotherDevice
    /// This device has no identity or signed prekey yet: bootstrap keys first.
    case keysNotBootstrapped
    /// The channel is not one of the account's channels.
    case unknownChannel(ChannelID)
    /// The channel's `encryption_type` is not one this core speaks.
    case unsupportedChannel(String)
    /// No device of any recipient has a usable bundle: nobody could read the message.
    case noRecipients(channelID: ChannelID)
    /// The message cannot be encrypted (T12): it stays out of the outbox and nothing is sent.
    case encryptionFailed(String)
    /// The message is not one of ours (edits and deletes apply to own messages only).
    case notOwnMessage(String)
    /// The outbox has no entry with this id.
    case unknownOutboxEntry(String)
    /// The text is over the payload limit or otherwise refused by the protocol.
    case invalidMessage(String)
    /// Every device the message would go to is held by the recipient policy (docs/spec/protocol.md §5):
    /// nothing was sent; approve a device (``Account/approveDevice(_:)``) and retry. `changes`
    /// is what the recipient check surfaced (the held devices among them).
    case allRecipientsHeld(channelID: ChannelID, changes: RecipientChanges)
    /// The DM's two participants are not known yet and its member list names more than two
    /// users: nothing is sent until they are (docs/spec/protocol.md §5).
    case participantsUnknown(channelID: ChannelID)
    /// A user's device list held a bundle that does not parse or verify: nothing is sent to
    /// a list the core could not read.
    case unreadableDeviceList(userID: UserID)
    /// No channel holds (or has declined, or sends to) this device.
    case unknownRecipient(deviceID: DeviceID)
    /// This device did not create, open or accept the channel (a request, or declined):
    /// nothing is sent in it until the app accepts it (``Account/acceptChannel(_:)``).
    case channelNotAccepted(channelID: ChannelID)
    /// The server's answer names the channel with a kind other than the one this device pinned
    /// (a DM as a group, or the reverse): nothing is sent under the other kind.
    case channelKindContradicted(channelID: ChannelID)
    /// A DM request has no candidate participant yet (no other user's message waits in it).
    case noCandidate(channelID: ChannelID)
    /// No group holds (or has declined) this user as a member.
    case unknownMember(userID: UserID)
    /// The DM request's candidate the app showed (`shown`) is no longer offered: it was declined,
    /// or no message of theirs waits in the DM any more. Nothing was accepted; show the request
    /// again (``Account/channelRequests()``) and let the user decide anew.
    case candidateChanged(channelID: ChannelID, shown: UserID)
    /// The user's devices carry current certificates under several user keys and none is
    /// pinned (docs/spec/protocol.md §10.5): nothing goes to the user until the app pins one
    /// (``Account/pinUserKey(_:of:)``) after comparing safety numbers.
    case userKeyConflict(userID: UserID)
    /// No listed device of the user is linked under the pinned key, or none carries a current
    /// certificate (docs/spec/protocol.md §10.5, §10.7): nothing is encrypted for the user.
    case noVerifiedDevice(userID: UserID)
    /// The user's key changed and the change waits for the app
    /// (``Account/acceptUserKeyChange(of:)``, docs/spec/protocol.md §10.17).
    case userKeyChangePending(userID: UserID)
    /// The device belongs to a user with a user key: only certificates decide it, never an
    /// approval (docs/spec/protocol.md §10.7).
    case deviceIsCertified(deviceID: DeviceID)
    /// The user has no pending key change or no pinned key, the key named is not one this device
    /// saw listed for the user, or this device never met the user.
    case unknownUserKey(userID: UserID)
    /// Only the primary device does this (it holds the user key), and this device is not the
    /// primary: the account has a key held by another device (docs/spec/protocol.md §10.12).
    case notPrimary
    /// The primary file cannot be kept safe here: no keychain was supplied
    /// (``AccountConfiguration/primaryFileKeychain``), the store is not on disk, or the file's
    /// directory cannot be made or excluded from backups (docs/spec/protocol.md §10.12). No key
    /// was created.
    case primaryFileUnprotected
    /// Issuing stopped for good on this primary (docs/spec/protocol.md §10.12): nothing is
    /// issued; the user resets the key.
    case issuingStopped(IssuingStopReason)
    /// The account already has a user key and this device holds it (``Account/ownUserKey()``).
    case userKeyExists
    /// The clock went back or is suspect (docs/spec/protocol.md §10.19): nothing is issued
    /// until a post agrees or the user confirms it (``Account/confirmClock()``).
    case clockNotConfirmed
    /// No other device of our user lists a current certificate, so none can answer a link
    /// request (docs/spec/protocol.md §10.11 step 1): the primary must come online, or the
    /// account has no user key.
    case noPrimaryListed
    /// This device is a login of an account with a user key that is not linked yet
    /// (docs/spec/protocol.md §10.7 for our own user): it sends nothing but link messages until
    /// it is linked (``Account/startLinking()``).
    case linkingRequired
    /// No link transfer of this id runs on this device (docs/spec/protocol.md §11.6): it
    /// ended, or never ran here (``Account/transfers()``).
    case unknownTransfer(String)
}
