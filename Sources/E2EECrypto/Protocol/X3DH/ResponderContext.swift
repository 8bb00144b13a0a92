/// What the receiving device knows when a prekey message arrives (docs/spec/protocol.md §2, Bob's steps).
/// The crypto module does no I/O: the caller loads these from its store, keyed by the message's
/// sender device, `EK_A`, `spk_id` and `opk_id` (see ``PrekeyMessage``).
public struct ResponderContext: Sendable {
    /// This device's identity.
    public var localIdentity: IdentityKeyPair
    /// The identity pinned for the sending device, if any.
    public var pinnedIdentity: IdentityBlob?
    /// The identity `GET /keys/{U}/bundles` lists for the sending device, if the caller has it.
    public var listedIdentity: IdentityBlob?
    /// Every retained signed prekey (or at least the one the message names).
    public var signedPrekeys: [SignedPrekey]
    /// One-time prekeys not yet wiped, consumed or not (or at least the one the message names).
    public var oneTimePrekeys: [OneTimePrekey]
    /// This device's accepted `EK_A` set (or at least the message's `EK_A` if it is in it).
    public var acceptedBaseKeys: Set<X25519.PublicKey>
    /// The current time, unix seconds (for the one-time prekey grace window).
    public var now: Int64

    /// Gathers the inputs.
    public init(localIdentity: IdentityKeyPair, pinnedIdentity: IdentityBlob?, listedIdentity: IdentityBlob?,
                signedPrekeys: [SignedPrekey], oneTimePrekeys: [OneTimePrekey], acceptedBaseKeys: Set<X25519.PublicKey>, now: Int64) {
        self.localIdentity = localIdentity
        self.pinnedIdentity = pinnedIdentity
        self.listedIdentity = listedIdentity
        self.signedPrekeys = signedPrekeys
        self.oneTimePrekeys = oneTimePrekeys
        self.acceptedBaseKeys = acceptedBaseKeys
        self.now = now
    }
}

/// The outcome of a prekey message that did not fail.
public enum PrekeyDecryptOutcome: Sendable {
    /// Decrypted; commit the effects once the envelope verifies.
    case decrypted(PendingDecryption)
    /// The device has no pinned identity and the caller supplied no listed one: fetch the
    /// sender's bundles, keep the message in the pending queue, and try again (not a refusal).
    case needsListedIdentity
}
