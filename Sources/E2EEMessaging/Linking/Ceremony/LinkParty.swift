import E2EECrypto

/// One device in a link ceremony, as the ceremony binds it: the codes are derived over both
/// devices' ids and identity blobs (docs/spec/protocol.md §10.11, B.4), each the blob the
/// pairwise ratchet between them is bound to.
struct LinkParty: Sendable, Hashable {
    /// The device id.
    let deviceID: WireUUID
    /// Its identity blob.
    let identity: IdentityBlob
}

/// What both ends of a ceremony know about themselves.
struct LinkSelf: Sendable {
    /// Our user.
    let userID: WireUUID
    /// This device.
    let device: LinkParty
    /// A fresh 32-byte nonce (random in use; fixed in tests).
    let makeNonce: @Sendable () -> SecretBytes
    /// A fresh random 16-byte id (a request's id).
    let makeID: @Sendable () -> WireUUID

    /// How long an attempt may go without progress before it is cancelled (10 minutes, §10.11).
    static let idleLimit: Int64 = 600
}

/// What a ceremony machine asks its driver to do, in order.
enum LinkCeremonyAction: Sendable, Equatable {
    /// Encrypts `plaintext` over the pairwise ratchet with `device` and posts it in the devices
    /// channel.
    case send(LinkPlaintext, to: WireUUID)
    /// Shows the user this step.
    case show(LinkStep)
    /// The primary's code matched: issue the new device's certificate at the file's epoch, log
    /// it, create the transfer channel and send the grant (§10.11 step 5, §10.12).
    case grant(to: LinkParty, requestID: WireUUID)
    /// The new device's user typed the primary's code and the grant holds: in one transaction
    /// pin the grant's key, record `primary` as the primary, then republish the record with the
    /// certificate and send `ack(transfer_id, 0)` (§10.11 step 5).
    case adopt(LinkGrant, primary: WireUUID)
}
