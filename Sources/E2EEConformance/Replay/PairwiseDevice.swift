import E2EECrypto

/// One device's pairwise store for a conversation, driven only through the public API: its
/// session record with the other device, its prekeys, accepted `EK_A` set and pin. The
/// generator and the conformance replay both receive through ``receiving(_:using:)``, which
/// applies ``SessionEffects`` only on success (the caller's transaction).
public struct PairwiseDevice: Sendable {
    /// This device's identity.
    public let identity: IdentityKeyPair
    /// Sessions with the other device.
    public private(set) var record: SessionRecord?
    /// Retained signed prekeys (Bob) or none (Alice).
    public let signedPrekeys: [SignedPrekey]
    /// One-time prekeys not yet wiped.
    public private(set) var oneTimePrekeys: [OneTimePrekey]
    /// Accepted `EK_A` set.
    public private(set) var acceptedBaseKeys: Set<X25519.PublicKey> = []
    /// The other device's pinned identity.
    public private(set) var pinned: IdentityBlob?
    /// The identity `GET /keys/{U}/bundles` lists for the other device.
    public let listed: IdentityBlob?
    /// `now` for the responder context.
    public let now: Int64

    /// A device with the given keys.
    public init(identity: IdentityKeyPair, record: SessionRecord?, signedPrekeys: [SignedPrekey], oneTimePrekeys: [OneTimePrekey],
                pinned: IdentityBlob?, listed: IdentityBlob?, now: Int64) {
        self.identity = identity
        self.record = record
        self.signedPrekeys = signedPrekeys
        self.oneTimePrekeys = oneTimePrekeys
        self.pinned = pinned
        self.listed = listed
        self.now = now
    }

    /// Encrypts with the current session, drawing the message's nonce from `random`.
    /// - Throws: ``ProtocolError/unknownSession`` without a session, or the ratchet's errors.
    public func sending(_ plaintext: [UInt8], using random: some RandomSource) throws -> (message: [UInt8], device: PairwiseDevice) {
        guard let record else { throw ProtocolError.unknownSession }
        let result = try record.encrypt(plaintext, using: random)
        var next = self
        next.record = result.record
        return (result.message, next)
    }

    /// Parses and decrypts `bytes`; on success returns the plaintext and the device with every
    /// effect applied. On failure `self` is untouched (a value).
    /// - Throws: the `ProtocolError` of the refusal.
    public func receiving(_ bytes: [UInt8], using random: some RandomSource) throws -> (plaintext: [UInt8], device: PairwiseDevice) {
        let pending: PendingDecryption
        switch try PairwiseMessage(bytes: bytes) {
        case .normal(let message):
            guard let record else { throw ProtocolError.unknownSession }
            pending = try record.decrypt(message, using: random)
        case .prekey(let message):
            let context = ResponderContext(localIdentity: identity, pinnedIdentity: pinned, listedIdentity: listed,
                                           signedPrekeys: signedPrekeys, oneTimePrekeys: oneTimePrekeys,
                                           acceptedBaseKeys: acceptedBaseKeys, now: now)
            switch try X3DH.respond(to: message, record: record, context: context, using: random) {
            case .decrypted(let result): pending = result
            case .needsListedIdentity: throw ProtocolError.unknownSession
            }
        }
        var next = self
        let effects = pending.effects
        next.record = effects.record
        if let accepted = effects.acceptedBaseKey { next.acceptedBaseKeys.insert(accepted.baseKey) }
        if let consumed = effects.consumedOneTimePrekey {
            next.oneTimePrekeys = oneTimePrekeys.map { $0.id == consumed.id ? $0.consumed(at: consumed.time) : $0 }
        }
        if let pin = effects.identityToPin { next.pinned = pin }
        return (pending.plaintext.unprotectedCopy(), next)
    }
}
