/// This device's sender key for one group channel (docs/spec/protocol.md §4): a random `key_id`, the
/// next iteration, the chain key at that iteration and the Ed25519 signing key.
///
/// A value type: ``encrypt(_:senderDevice:using:)`` returns the advanced state, which the caller
/// must persist *before* the envelope leaves the process (a retry resends the stored envelope
/// and never re-encrypts). Each message's nonce is random, so even a state used twice (a
/// restored store) never encrypts two plaintexts under one key and nonce. Not `Codable`: it is stored only
/// through ``serialized()``, which the key store seals.
public struct SenderKeySendingState: Sendable, CustomStringConvertible {
    /// The channel this key sends in.
    public let channel: WireUUID
    /// The random key id, different from every id retained for this (channel, device).
    public let keyID: UInt32
    /// The iteration the next message will use; also the number of messages sent with this key.
    public let iteration: UInt32
    /// `CK_iteration`.
    let chainKey: SecretBytes
    /// `SK_sig`.
    let signingKey: Ed25519.PrivateKey

    init(channel: WireUUID, keyID: UInt32, iteration: UInt32, chainKey: SecretBytes, signingKey: Ed25519.PrivateKey) {
        self.channel = channel
        self.keyID = keyID
        self.iteration = iteration
        self.chainKey = chainKey
        self.signingKey = signingKey
    }

    /// A new sender key for `channel`: iteration 0, 32 random chain-key bytes, a new signing key
    /// and a random `key_id` not in `retainedKeyIDs` (the ids of this device's retained keys for
    /// the channel, sending and receiving).
    public static func generate(channel: WireUUID, retainedKeyIDs: Set<UInt32>, using random: some RandomSource) -> SenderKeySendingState {
        var keyID = random.uint32()
        while retainedKeyIDs.contains(keyID) { keyID = random.uint32() }
        return SenderKeySendingState(
            channel: channel, keyID: keyID, iteration: 0,
            chainKey: SecretBytes.random(count: SenderKeyChain.keyLength, using: random),
            signingKey: Ed25519.PrivateKey(using: random)
        )
    }

    /// The public signing key `SK_sig_pub`.
    public var signingPublicKey: Ed25519.PublicKey { signingKey.publicKey }

    /// `true` once ``ProtocolLimits/senderKeyRotationMessageCount`` messages were sent: the
    /// caller must make a new key (``generate(channel:retainedKeyIDs:using:)``) and distribute
    /// it before the next send. Rotation on membership changes and after a restore is the
    /// caller's decision too.
    public var needsRotation: Bool { iteration >= UInt32(ProtocolLimits.senderKeyRotationMessageCount) }

    /// The SKD that lets a receiver read every message from the current iteration on (joiners
    /// and new devices get this, never an earlier state).
    public var distribution: SenderKeyDistribution {
        SenderKeyDistribution(channel: channel, keyID: keyID, iteration: iteration, chainKey: chainKey, signingPublicKey: signingKey.publicKey)
    }

    /// The public index entry `POST /keys/channels/{id}/sender-keys` carries: informational only.
    public var indexEntry: (senderKeyPublic: String, chainKey: String) {
        var writer = WireWriter()
        writer.write(UInt8(0x01))
        writer.write(keyID)
        return (Base64.encode(signingKey.publicKey.rawRepresentation), Base64.encode(writer.bytes))
    }

    /// Encrypts `payload` at the current iteration under a fresh random nonce from `random`, and
    /// signs the envelope.
    /// - Returns: the envelope and the advanced state (persist it before sending).
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` for a payload above
    ///   ``ProtocolLimits/maxPayloadBytes`` or an exhausted chain, ``ProtocolError/crypto(_:)``
    ///   when AES-256-GCM is unavailable.
    public func encrypt(_ payload: some ByteView, senderDevice: WireUUID,
                        using random: some RandomSource = SystemRandom()) throws -> (envelope: GroupEnvelope, state: SenderKeySendingState) {
        let length = payload.withByteView { $0.count }
        guard length <= ProtocolLimits.maxPayloadBytes else {
            throw ProtocolError.limitExceeded(.payload, limit: ProtocolLimits.maxPayloadBytes, actual: length)
        }
        guard iteration < UInt32.max else { throw ProtocolError.limitExceeded(.senderKeyState, limit: Int(UInt32.max), actual: Int(iteration)) }
        let messageKey = SenderKeyChain.messageKey(chainKey: chainKey)
        let key = try SenderKeyChain.aeadKey(messageKey: messageKey)
        let nonce = random.bytes(count: GroupEnvelope.nonceLength)
        let header = GroupEnvelope.header(senderDevice: senderDevice, keyID: keyID, iteration: iteration, nonce: nonce)
        let ciphertext: [UInt8]
        do {
            ciphertext = try AES256GCM.seal(payload, key: key, nonce: nonce, authenticating: GroupEnvelope.associatedData(channel: channel, header: header))
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        let signature = signingKey.signature(for: GroupEnvelope.signedBytes(channel: channel, header: header, ciphertext: ciphertext))
        let envelope = try GroupEnvelope(senderDevice: senderDevice, keyID: keyID, iteration: iteration, nonce: nonce,
                                         ciphertext: ciphertext, signature: signature)
        let next = SenderKeySendingState(
            channel: channel, keyID: keyID, iteration: iteration + 1,
            chainKey: SenderKeyChain.nextChainKey(chainKey), signingKey: signingKey
        )
        return (envelope, next)
    }

    /// Never shows key material.
    public var description: String {
        "SenderKeySendingState(channel: \(channel), keyID: \(keyID), iteration: \(iteration), <redacted>)"
    }
}
