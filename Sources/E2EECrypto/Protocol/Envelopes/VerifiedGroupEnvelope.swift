/// A group envelope whose signature has been checked for one channel and one signing key.
///
/// Verifying a signature needs only public values (the sender key's signing key and the
/// channel), not the chain state, so a receiver can verify a batch's group messages in
/// parallel ahead of the strictly serial ratchet step, which then takes this proof instead of
/// verifying again (``SenderKeyReceivingState`` `decrypt(_:channel:now:)`).
/// The proof is only accepted by a state whose channel and signing key are the ones verified
/// against; for any other state the signature is checked again.
public struct VerifiedGroupEnvelope: Sendable {
    /// The envelope.
    public let envelope: GroupEnvelope
    /// The channel the signature was verified for.
    public let channel: WireUUID
    /// The key the signature was verified with.
    public let signingKey: Ed25519.PublicKey

    /// Verifies `envelope`'s signature for `channel` with `signingKey`.
    /// - Throws: ``ProtocolError/badSignature``.
    public init(_ envelope: GroupEnvelope, channel: WireUUID, signingKey: Ed25519.PublicKey) throws {
        try envelope.verifySignature(channel: channel, signingKey: signingKey)
        self.envelope = envelope
        self.channel = channel
        self.signingKey = signingKey
    }
}
