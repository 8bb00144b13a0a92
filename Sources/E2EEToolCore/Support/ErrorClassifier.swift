import E2EEKeyStore
import E2EEMessaging

/// Turns whatever a command threw into the tool's exit status and a public message. The
/// errors of the layers below carry ids and public reasons only, so their texts can be shown.
public enum ErrorClassifier {
    /// The ``ToolError`` for `error`.
    public static func classify(_ error: any Error) -> ToolError {
        switch error {
        case let error as ToolError: return error
        case let error as ServerError: return classify(error)
        case let error as MessagingError: return classify(error)
        case let error as KeyStoreError: return classify(error)
        case let error as PrimaryFileError: return ToolError(.failure, "the primary file cannot be used: \(error)")
        case is CancellationError: return ToolError(.failure, "cancelled")
        default: return ToolError(.failure, String(describing: error))
        }
    }

    static func classify(_ error: ServerError) -> ToolError {
        switch error {
        case .transport(let what): return ToolError(.serverUnreachable, "the server could not be reached (\(what))")
        case .unauthenticated(let detail):
            return ToolError(.authentication, "authentication failed" + (detail.map { ": \($0)" } ?? ""))
        case .sessionEnded: return ToolError(.authentication, "the session ended (the server refused to refresh it): log in again")
        case .notLoggedIn: return ToolError(.authentication, "this store holds no session: log in again (account login)")
        case .notFound(let detail): return ToolError(.notFound, "not found" + (detail.map { ": \($0)" } ?? ""))
        case .forbidden(let detail): return ToolError(.serverRefused, "forbidden" + (detail.map { ": \($0)" } ?? ""))
        case .conflict(let detail): return ToolError(.serverRefused, "conflict" + (detail.map { ": \($0)" } ?? ""))
        case .badRequest(let detail): return ToolError(.serverRefused, "refused" + (detail.map { ": \($0)" } ?? ""))
        case .validation(let issues):
            return ToolError(.serverRefused, "the server refused the request: " + issues.map { ($0.location.last ?? "?") + ": " + $0.message }.joined(separator: "; "))
        case .rateLimited(let retryAfter):
            return ToolError(.serverRefused, "rate limited" + (retryAfter.map { ", retry after \($0) s" } ?? ""))
        case .server(let status, let body): return ToolError(.serverRefused, "server error \(status): \(body)")
        case .unexpectedStatus(let status, let body): return ToolError(.serverRefused, "unexpected status \(status): \(body)")
        case .decoding(let what): return ToolError(.serverRefused, "the server's answer did not decode (\(what))")
        case .responseTooLarge(let limit): return ToolError(.serverRefused, "the server's answer is over \(limit) bytes, even for one message")
        }
    }

    static func classify(_ error: MessagingError) -> ToolError {
        switch error {
        case .noAccount: return ToolError(.notFound, "the store holds no account: run account register or account login first")
        case .storeBelongsToAnotherDevice:
            return ToolError(.failure, "the store already holds a device: choose a new store with --store (one store per device)")
        case .keysNotBootstrapped: return ToolError(.failure, "this device has no keys yet: run keys bootstrap first")
        case .unknownChannel(let id): return ToolError(.notFound, "unknown channel \(id)")
        case .unsupportedChannel(let id): return ToolError(.failure, "channel \(id) uses an encryption type this tool does not speak")
        case .noRecipients(let id): return ToolError(.notSent, "no device in channel \(id) can receive the message")
        case .encryptionFailed(let why): return ToolError(.notSent, "the message could not be encrypted: \(why)")
        case .notOwnMessage(let id): return ToolError(.failure, "message \(id) is not one of ours")
        case .unknownOutboxEntry(let id): return ToolError(.notFound, "no failed outbox entry \(id)")
        case .invalidMessage(let why): return ToolError(.usage, "the message is refused: \(why)")
        case .allRecipientsHeld(let id, let changes):
            let held = changes.held.map(\.deviceID.rawValue).joined(separator: ", ")
            return ToolError(.recipientsHeld, "every recipient device in channel \(id) is held (\(held)): approve one with devices approve")
        case .participantsUnknown(let id): return ToolError(.notSent, "the two participants of DM \(id) are not known: nothing was sent")
        case .unreadableDeviceList(let user): return ToolError(.notSent, "the device list of user \(user) holds a bundle that does not verify: nothing was sent")
        case .unknownRecipient(let id): return ToolError(.notFound, "no channel holds, declined or sends to device \(id)")
        case .channelNotAccepted(let id):
            return ToolError(.notSent, "channel \(id) is a request this device has not accepted: run channels accept \(id) first")
        case .channelKindContradicted(let id):
            return ToolError(.notSent, "the server names channel \(id) with another kind than the one pinned here: nothing was sent")
        case .noCandidate(let id): return ToolError(.notFound, "no message from another user waits in DM \(id) yet")
        case .unknownMember(let id): return ToolError(.notFound, "no group holds or declined member \(id)")
        case .candidateChanged(let id, let shown):
            return ToolError(.notFound, "user \(shown), shown as the candidate of DM \(id), is no longer offered: run channels requests again")
        case .userKeyConflict(let user):
            return ToolError(.userKeyUnresolved, "user \(user) shows several user keys: compare safety numbers, then user-key pin; nothing was sent")
        case .noVerifiedDevice(let user):
            return ToolError(.userKeyUnresolved, "user \(user) has no device certified under their user key: nothing was sent")
        case .userKeyChangePending(let user):
            return ToolError(.userKeyUnresolved, "user \(user) changed their user key: compare safety numbers, then user-key accept; nothing was sent")
        case .deviceIsCertified(let device):
            return ToolError(.failure, "device \(device) belongs to a user with a user key: certificates decide it, not an approval")
        case .unknownUserKey(let user):
            return ToolError(.notFound, "user \(user): no such key listed, no key pinned or change waiting, or the user was never met here")
        case .notPrimary: return ToolError(.notPrimary, "this device is not the primary of the user key: run it on the primary")
        case .primaryFileUnprotected:
            return ToolError(.failure, "the primary file cannot be kept beside this store (its directory cannot be made or tagged CACHEDIR.TAG): no user key was created")
        case .issuingStopped(let reason):
            return ToolError(.failure, "this primary stopped issuing certificates (\(reason.rawValue)): reset the user key")
        case .userKeyExists: return ToolError(.failure, "this device already holds the user key (user-key status)")
        case .clockNotConfirmed:
            return ToolError(.failure, "this device's clock went back or disagrees with the server's: check it, then clock confirm; nothing was issued")
        case .noPrimaryListed:
            return ToolError(.failure, "no other device of this user lists a current certificate: open the primary, or create a user key first")
        case .linkingRequired:
            return ToolError(.linkingRequired, "this device must be linked to the primary before it sends: run link start here and link accept on the primary")
        case .unknownTransfer(let id):
            return ToolError(.notFound, "no transfer \(id) runs on this device (transfer status lists them)")
        }
    }

    static func classify(_ error: KeyStoreError) -> ToolError {
        switch error {
        case .wrongKey: return ToolError(.wrongPassphrase, "wrong passphrase: it does not open this store (nothing was changed)")
        case .keySourceMismatch(let source):
            return ToolError(.failure, "the store is opened with a \(source.rawValue) key, not a passphrase: the tool cannot open it")
        case .notAKeyStore: return ToolError(.failure, "the file is not an e2ee key store")
        case .schemaFromNewerVersion: return ToolError(.failure, "the store was written by a newer version: update the tool")
        default: return ToolError(.failure, "key store: \(error)")
        }
    }
}
