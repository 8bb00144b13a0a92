/// A verified decryption that is not applied yet (docs/spec/protocol.md §3 atomicity). The caller checks
/// the enclosing envelope with ``plaintext``; only if that verifies does it commit ``effects``
/// in one transaction. Dropping it instead leaves every stored state unchanged.
public struct PendingDecryption: Sendable, CustomStringConvertible {
    /// The pairwise plaintext (secret).
    public let plaintext: SecretBytes
    /// What to store if the envelope verifies.
    public let effects: SessionEffects

    /// Never shows the plaintext.
    public var description: String { "PendingDecryption(plaintext: \(plaintext), effects: \(effects))" }
}

/// Everything a successful pairwise decryption changes, returned as values for the caller to
/// commit together (and nothing else may change).
public struct SessionEffects: Sendable, CustomStringConvertible {
    /// The sending device's session record to store in place of the old one.
    public let record: SessionRecord
    /// A base key to add to the accepted set (a new session was accepted as responder).
    public let acceptedBaseKey: AcceptedBaseKey?
    /// A one-time prekey to mark consumed (only when it was unconsumed before).
    public let consumedOneTimePrekey: OneTimePrekeyConsumption?
    /// An identity to pin for the sending device (it had none pinned).
    public let identityToPin: IdentityBlob?

    /// The effects of a decryption that only advanced an existing session.
    init(record: SessionRecord) {
        self.init(record: record, acceptedBaseKey: nil, consumedOneTimePrekey: nil, identityToPin: nil)
    }

    init(record: SessionRecord, acceptedBaseKey: AcceptedBaseKey?, consumedOneTimePrekey: OneTimePrekeyConsumption?, identityToPin: IdentityBlob?) {
        self.record = record
        self.acceptedBaseKey = acceptedBaseKey
        self.consumedOneTimePrekey = consumedOneTimePrekey
        self.identityToPin = identityToPin
    }

    /// Public facts only.
    public var description: String {
        "SessionEffects(record: \(record), acceptedBaseKey: \(acceptedBaseKey.map { "\($0)" } ?? "nil"), "
            + "consumedOneTimePrekey: \(consumedOneTimePrekey.map { "\($0)" } ?? "nil"), identityToPin: \(identityToPin.map { "\($0)" } ?? "nil"))"
    }
}

/// An `EK_A` to record in the receiving device's accepted set, kept until the signed prekey it
/// named is wiped (docs/spec/protocol.md §2 step 5).
public struct AcceptedBaseKey: Sendable, Hashable {
    /// `EK_A`.
    public let baseKey: X25519.PublicKey
    /// The signed prekey whose retention bounds how long the entry is kept.
    public let signedPrekeyID: UInt32
}

/// A one-time prekey consumed by a prekey message at `time` (unix seconds).
public struct OneTimePrekeyConsumption: Sendable, Hashable {
    /// `opk_id`.
    public let id: UInt32
    /// When it was consumed; its private key is wiped ``ProtocolLimits/oneTimePrekeyGraceSeconds`` later.
    public let time: Int64
}

/// The result of encrypting in a session: the record to persist *before* the message leaves
/// the process, and the pairwise message bytes.
public struct PairwiseEncryption: Sendable {
    /// The advanced record.
    public let record: SessionRecord
    /// The pairwise message (prekey while the session awaits a reply, else normal).
    public let message: [UInt8]
}
