/// Where in a structure a malformed input was found.
public enum WireLocation: String, Sendable, Equatable {
    case identityBlob, signedPrekey, oneTimePrekey, bundle, prekeyMessage, normalMessage, header
    case dmEnvelope, groupEnvelope, skdEnvelope, skdPlaintext, recipientEntry, pairwisePlaintext
    case payload, sessionState, senderKeyState, uuid, content
    case pairwiseMessage, keyState, sessionRecord
    /// The 104-byte device certificate inside a signed prekey record (protocol text 1.3).
    case certificate
    /// A link envelope, `0x03 0x04` (protocol text 1.3, §10.22).
    case linkEnvelope
    /// The plaintext of a link envelope's pairwise message, `0x03 || kind || fields` (§10.22).
    case linkPlaintext
    /// One record of a link transfer (§11.2).
    case transferRecord
}

/// Every protocol outcome that is not success (docs/spec/protocol.md §9). Each leaves all state unchanged.
public enum ProtocolError: Error, Sendable, Equatable {
    /// The bytes do not parse: `reason` says what, `location` where.
    case malformed(WireLocation, reason: String)
    /// Input shorter than its structure requires.
    case truncated(WireLocation, expected: Int, actual: Int)
    /// Bytes left over after a structure that must end there.
    case trailingBytes(WireLocation, count: Int)
    /// An unknown version or type byte.
    case unsupportedVersion(WireLocation, value: UInt8)
    /// A count or length outside ``ProtocolLimits``.
    case limitExceeded(WireLocation, limit: Int, actual: Int)
    /// A signature (signed prekey, group message) did not verify.
    case badSignature
    /// An AEAD tag did not verify.
    case badTag
    /// The DM key commitment does not match the wrapped key.
    case keyCommitMismatch
    /// A public key that is non-canonical, of low order, or otherwise unusable.
    case invalidKey(WireLocation)
    /// A Diffie-Hellman output was all zero.
    case allZeroSharedSecret
    /// A prekey message reused an accepted `EK_A` outside its own session.
    case replay
    /// Already processed; answer from the plaintext cache.
    case duplicate
    /// A signed group message at a (channel, sender device, `key_id`, iteration) whose key this
    /// device already used: the sender's store was probably restored from an older copy
    /// (docs/spec/protocol.md §6.6, §9). Refused; the first message's content stays.
    case positionReused
    /// Older than the chain, with no stored key.
    case tooOld
    /// A skip or jump above the limits (§3, §4).
    case tooFarAhead(jump: Int, limit: Int)
    /// The identity blob differs from the pinned or listed one.
    case identityMismatch
    /// The envelope's or message's sender device does not match what authenticates it.
    case senderMismatch
    /// No session for the sending device: the message waits in the pending queue.
    case unknownSession
    /// No sender key for (channel, device, key id): the message waits in the pending queue.
    case unknownSenderKey
    /// No retained signed prekey or usable one-time prekey with the named id.
    case unknownPrekey
    /// The session has no sending chain yet: a responder sends only after it has received (§3).
    case cannotSendYet
    /// `protocol_version` 1 content: never opened.
    case unencrypted
    /// The envelope type does not match the channel's `encryption_type` or `content_type`.
    case wrongEnvelopeType
    /// An entry addressed to the sender's own device, or the same recipient twice.
    case invalidRecipients(reason: String)
    /// The SKD names a channel other than the one it was posted in.
    case channelMismatch
    /// An SKD for a known (channel, device, key id) carries a different signing key.
    case senderKeyConflict
    /// The envelope holds no entry addressed to this device.
    case notARecipient
    /// An edit's `edit_of` does not name the message it replaces, or posted content carries one.
    case editMismatch
    /// A primitive failed in a way the protocol does not map more precisely.
    case crypto(CryptoError)
}
