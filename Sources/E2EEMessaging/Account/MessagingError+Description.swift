import Foundation

/// What each refusal means to the user, and what they can do about it: the text an app may
/// show as it is (ids only, never a secret or a message text).
extension MessagingError: LocalizedError {
    /// The refusal in a sentence, ending with what the user (or the app) can do.
    public var errorDescription: String? {
        switch self {
        case .noAccount:
            "This store holds no account. Register or log in first."
        case .storeBelongsToAnotherDevice:
            "This store already belongs to another device. Use a new store to register or log in."
        case .keysNotBootstrapped:
            "This device has no keys yet. Bootstrap its keys before sending or receiving."
        case .unknownChannel(let channel):
            "Channel \(channel) is not one of this account's channels. Refresh the channel list, or open or join it first."
        case .unsupportedChannel(let kind):
            "The channel uses encryption \"\(kind)\", which this app does not speak. Nothing can be sent in it."
        case .noRecipients(let channel):
            "No device in channel \(channel) can receive messages yet (none published its keys). Try again once the other user has used the app."
        case .encryptionFailed(let reason):
            "The message could not be encrypted (\(reason)). Nothing was sent; retry it later."
        case .notOwnMessage(let id):
            "Message \(id) is not one of this device's readable messages. Only your own messages can be edited or deleted."
        case .unknownOutboxEntry(let id):
            "No unsent message has the id \(id) (it was already sent, cancelled, or is being sent). List the outbox to see what waits."
        case .invalidMessage(let reason):
            "The message cannot be sent as written (\(reason)). Shorten or change it."
        case .allRecipientsHeld(let channel, _):
            "Every device in channel \(channel) is waiting for your approval, so nothing was sent. Compare safety numbers, approve a device, then retry."
        case .participantsUnknown(let channel):
            "The direct message \(channel) lists more than two members and its participants are not fixed yet. Open it with the person you mean, or accept its request."
        case .unreadableDeviceList(let user):
            "The server's device list for user \(user) could not be verified, so nothing was sent to it. Try again later; if it persists, the server is misbehaving."
        case .unknownRecipient(let device):
            "No conversation holds device \(device) for approval. List the held devices to see what waits."
        case .channelNotAccepted(let channel):
            "Channel \(channel) is a request you have not accepted. Accept it before writing in it."
        case .channelKindContradicted(let channel):
            "The server describes channel \(channel) as a different kind than when it was first seen. Nothing is sent under the other kind; the server misbehaved."
        case .noCandidate(let channel):
            "Nobody has written in the direct message \(channel) yet, so there is nobody to accept. Wait for the other person's first message, or open a direct message with them yourself."
        case .unknownMember(let user):
            "No group holds user \(user) for approval. List the held members to see what waits."
        case .candidateChanged(let channel, let shown):
            "The request in \(channel) no longer offers user \(shown) (declined since, or their message is gone). Nothing was accepted; show the requests again and decide anew."
        case .userKeyConflict(let user):
            "User \(user) shows several user keys. Nothing is sent to them until you compare safety numbers with them and pin one."
        case .noVerifiedDevice(let user):
            "User \(user) has no device certified under their user key. Nothing is sent to them; they may need to open their primary device."
        case .userKeyChangePending(let user):
            "User \(user) changed their user key. Nothing is sent to them until you accept the change, best after comparing safety numbers."
        case .deviceIsCertified(let device):
            "Device \(device) belongs to a user with a user key: their certificates decide it, not an approval."
        case .unknownUserKey(let user):
            "That key is not one listed for user \(user), no key is pinned or no change of their key is waiting, or this device never met them. Show their keys again."
        case .notPrimary:
            "Only the primary device can do this, and this device is not the primary of your user key."
        case .primaryFileUnprotected:
            "The primary file cannot be kept safe here (no keychain, no store on disk, or no backup exclusion): no user key was created."
        case .issuingStopped(let reason):
            "This primary stopped issuing certificates (\(reason.rawValue)): reset the user key."
        case .userKeyExists:
            "This device already holds the account's user key."
        case .clockNotConfirmed:
            "This device's clock went back or disagrees with the server's: check it, then confirm it, before any certificate is issued."
        case .noPrimaryListed:
            "No other device of yours lists a current certificate: open your primary device, or create a user key first."
        case .linkingRequired:
            "This device must be linked to your primary before it can send (link it with the two codes)."
        case .unknownTransfer(let id):
            "No transfer \(id) is running on this device."
        }
    }
}
