/// Encrypts a pairwise plaintext for one recipient device with the caller's session and returns
/// the pairwise message bytes (the pairwise layer is not part of this module's group code).
public typealias PairwiseEncrypt = (_ recipientDevice: WireUUID, _ plaintext: SecretBytes) throws -> [UInt8]

extension DMEnvelope {
    /// Encrypts `payload` for `recipients` with a fresh per-message key `K`.
    ///
    /// - Parameters:
    ///   - payload: the UTF-8 JSON payload (§6).
    ///   - channel: the DM channel.
    ///   - senderDevice: this device.
    ///   - recipients: every device of every member except this one.
    ///   - random: source of `K` and the payload nonce.
    ///   - pairwiseEncrypt: encrypts each recipient's key entry with its pairwise session.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` (payload size, recipient count,
    ///   envelope size), ``ProtocolError/invalidRecipients(reason:)``, ``ProtocolError/crypto(_:)``,
    ///   or whatever `pairwiseEncrypt` throws.
    public static func seal(
        payload: some ByteView, channel: WireUUID, senderDevice: WireUUID, recipients: [WireUUID],
        using random: some RandomSource, pairwiseEncrypt: PairwiseEncrypt
    ) throws -> DMEnvelope {
        let length = payload.withByteView { $0.count }
        guard length <= ProtocolLimits.maxPayloadBytes else {
            throw ProtocolError.limitExceeded(.payload, limit: ProtocolLimits.maxPayloadBytes, actual: length)
        }
        try RecipientEntry.validate(recipients, sender: senderDevice, at: .dmEnvelope)
        let key = SecretBytes.random(count: DMKeyEntry.keyLength, using: random)
        let nonce = random.bytes(count: AES256GCM.nonceLength)
        let ciphertext: [UInt8]
        do {
            ciphertext = try AES256GCM.seal(payload, key: key, nonce: nonce, authenticating: associatedData(channel: channel, senderDevice: senderDevice))
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        let entry = PairwisePlaintext.dmKey(DMKeyEntry(key: key, payloadHash: SHA256.hash(nonce + ciphertext))).encoded()
        let entries = try recipients.map { device in
            try RecipientEntry(recipientDevice: device, pairwiseMessage: pairwiseEncrypt(device, entry))
        }
        let commit = keyCommitment(for: key)
        let envelope = try DMEnvelope(senderDevice: senderDevice, payloadNonce: nonce, keyCommit: commit, recipients: entries, payloadCiphertext: ciphertext)
        try requireEncodableContent(byteCount: envelope.encodedLength, at: .dmEnvelope)
        return envelope
    }

    /// Opens the payload with this device's decrypted pairwise plaintext: checks the entry's
    /// payload hash, the key commitment, then the AEAD.
    /// - Parameters:
    ///   - pairwisePlaintext: what the caller's session decrypted from ``pairwiseMessage(for:)``.
    ///   - channel: the channel the message was posted in.
    /// - Returns: the payload bytes.
    /// - Throws: the errors of ``PairwisePlaintext/decode(_:)``, ``ProtocolError/wrongEnvelopeType``
    ///   for an SKD where a DM key belongs, ``ProtocolError/keyCommitMismatch`` when the entry's
    ///   payload hash or the key commitment does not match, ``ProtocolError/badTag``, or
    ///   ``ProtocolError/crypto(_:)``.
    public func open(pairwisePlaintext: SecretBytes, channel: WireUUID) throws -> SecretBytes {
        guard case .dmKey(let entry) = try PairwisePlaintext.decode(pairwisePlaintext) else { throw ProtocolError.wrongEnvelopeType }
        guard ConstantTime.equals(entry.payloadHash, payloadHash) else { throw ProtocolError.keyCommitMismatch }
        let commit = Self.keyCommitment(for: entry.key)
        guard ConstantTime.equals(commit, keyCommit) else { throw ProtocolError.keyCommitMismatch }
        do {
            return try AES256GCM.open(payloadCiphertext, key: entry.key, nonce: payloadNonce, authenticating: Self.associatedData(channel: channel, senderDevice: senderDevice))
        } catch {
            throw protocolError(fromAEAD: error)
        }
    }

    /// `SHA-256("e2ee-dm-key-v1" || K)`, hashed from a wiped buffer.
    static func keyCommitment(for key: SecretBytes) -> [UInt8] {
        let input = SecretWireWriter.build(count: keyCommitLabel.count + key.count) { writer in
            writer.write(keyCommitLabel)
            writer.write(key)
        }
        return SHA256.hash(input)
    }

    /// Length of ``encoded()``.
    var encodedLength: Int {
        2 + 16 + AES256GCM.nonceLength + SHA256.digestLength + 2
            + recipients.reduce(0) { $0 + 18 + $1.pairwiseMessage.count } + payloadCiphertext.count
    }
}
