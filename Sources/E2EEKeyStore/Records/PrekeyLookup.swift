/// What a prekey message names, looked up for the responder (docs/spec/protocol.md §2 steps 2 and 4).
package struct PrekeyLookup: Sendable {
    /// The signed prekey with the message's `spk_id`, if retained.
    public var signedPrekey: SignedPrekey?
    /// The one-time prekey with the message's `opk_id`, if any and not wiped (consumed ones
    /// included: the caller checks the grace window).
    public var oneTimePrekey: OneTimePrekey?
    /// Whether the message's `EK_A` is in the accepted set.
    public var ephemeralKeyAccepted: Bool

    /// Creates the value.
    public init(signedPrekey: SignedPrekey?, oneTimePrekey: OneTimePrekey?, ephemeralKeyAccepted: Bool) {
        self.signedPrekey = signedPrekey
        self.oneTimePrekey = oneTimePrekey
        self.ephemeralKeyAccepted = ephemeralKeyAccepted
    }
}
