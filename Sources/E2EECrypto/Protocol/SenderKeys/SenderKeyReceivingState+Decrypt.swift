extension SenderKeyReceivingState {
    /// Verifies and decrypts a group message, returning the payload and the state to commit.
    ///
    /// Order (§4): the sender key must match, the signature is verified first, then the
    /// iteration is placed (stored skipped key, reused position, too old, or a forward jump of at most
    /// ``ProtocolLimits/maxSenderKeyJump``), keys are derived on a copy, and the AEAD is checked;
    /// only then is a new state returned. On any error `self` is the state to keep.
    ///
    /// - Parameters:
    ///   - envelope: the decoded group envelope.
    ///   - postedChannel: the channel the message was posted in.
    ///   - now: unix seconds, recorded as the last use (retention).
    /// - Throws: ``ProtocolError/channelMismatch`` (posted in another channel),
    ///   ``ProtocolError/senderMismatch`` (another sending device), ``ProtocolError/unknownSenderKey``
    ///   (another key id), ``ProtocolError/badSignature``, ``ProtocolError/positionReused`` (this
    ///   iteration's key was already used: other bytes at a decrypted position, or the same
    ///   bytes again, which the caller's dedupe answers first), ``ProtocolError/tooOld`` (older than the state with no
    ///   stored key), ``ProtocolError/tooFarAhead(jump:limit:)``, ``ProtocolError/badTag``, or
    ///   ``ProtocolError/crypto(_:)`` when AES-256-GCM is unavailable.
    public func decrypt(_ envelope: GroupEnvelope, channel postedChannel: WireUUID, now: Int64) throws -> (plaintext: SecretBytes, state: SenderKeyReceivingState) {
        try checkAddress(of: envelope, postedChannel: postedChannel)
        try envelope.verifySignature(channel: channel, signingKey: signingPublicKey)
        return try decryptVerified(envelope, now: now)
    }

    /// Decrypts an envelope whose signature was
    /// verified ahead: the proof stands in for the verification when it was made for this
    /// state's channel and signing key; otherwise the signature is verified here. Same checks,
    /// same order, same errors.
    public func decrypt(_ verified: VerifiedGroupEnvelope, channel postedChannel: WireUUID, now: Int64) throws -> (plaintext: SecretBytes, state: SenderKeyReceivingState) {
        let envelope = verified.envelope
        try checkAddress(of: envelope, postedChannel: postedChannel)
        if verified.channel != channel || verified.signingKey != signingPublicKey {
            try envelope.verifySignature(channel: channel, signingKey: signingPublicKey)
        }
        return try decryptVerified(envelope, now: now)
    }

    private func checkAddress(of envelope: GroupEnvelope, postedChannel: WireUUID) throws {
        guard postedChannel == channel else { throw ProtocolError.channelMismatch }
        guard envelope.senderDevice == senderDevice else { throw ProtocolError.senderMismatch }
        guard envelope.keyID == keyID else { throw ProtocolError.unknownSenderKey }
    }

    /// The iteration, key derivation and AEAD steps of a decryption whose signature is checked.
    private func decryptVerified(_ envelope: GroupEnvelope, now: Int64) throws -> (plaintext: SecretBytes, state: SenderKeyReceivingState) {
        let iteration = envelope.iteration
        if iteration < nextIteration {
            guard let messageKey = skippedKeys[iteration] else {
                let evicted = evictedThrough.map { iteration <= $0 } ?? false
                // The signature verified and this iteration's key was used here: a message at a
                // position this device already decrypted (the caller's dedupe catches the same
                // bytes earlier), so the sender's store was probably restored (§6.6, §9).
                throw iteration < installedIteration || evicted ? ProtocolError.tooOld : ProtocolError.positionReused
            }
            let plaintext = try open(envelope, messageKey: messageKey)
            var remaining = skippedKeys
            remaining.removeValue(forKey: iteration)
            return (plaintext, advanced(nextIteration: nextIteration, chainKey: chainKey, skippedKeys: remaining, evictedThrough: evictedThrough, now: now))
        }

        let jump = Int(iteration) - Int(nextIteration)
        guard jump <= ProtocolLimits.maxSenderKeyJump else {
            throw ProtocolError.tooFarAhead(jump: jump, limit: ProtocolLimits.maxSenderKeyJump)
        }
        guard iteration < UInt32.max else {
            throw ProtocolError.limitExceeded(.groupEnvelope, limit: Int(UInt32.max) - 1, actual: Int(iteration))
        }
        // Everything below works on copies; nothing is committed unless the AEAD verifies.
        var chain = chainKey
        var skipped = skippedKeys
        for skippedIteration in nextIteration..<iteration {
            skipped[skippedIteration] = SenderKeyChain.messageKey(chainKey: chain)
            chain = SenderKeyChain.nextChainKey(chain)
        }
        let plaintext = try open(envelope, messageKey: SenderKeyChain.messageKey(chainKey: chain))
        chain = SenderKeyChain.nextChainKey(chain)
        var evicted = evictedThrough
        let overflow = skipped.count - ProtocolLimits.maxStoredSenderKeySkippedKeys
        if overflow > 0 {
            // Keep the highest iterations: late messages are more likely recent ones.
            for dropped in skipped.keys.sorted().prefix(overflow) {
                skipped.removeValue(forKey: dropped)
                evicted = max(evicted ?? dropped, dropped)
            }
        }
        return (plaintext, advanced(nextIteration: iteration + 1, chainKey: chain, skippedKeys: skipped, evictedThrough: evicted, now: now))
    }

    private func open(_ envelope: GroupEnvelope, messageKey: SecretBytes) throws -> SecretBytes {
        let key = try SenderKeyChain.aeadKey(messageKey: messageKey)
        let aad = GroupEnvelope.associatedData(channel: channel, header: envelope.header)
        do {
            return try AES256GCM.open(envelope.ciphertext, key: key, nonce: envelope.nonce, authenticating: aad)
        } catch {
            throw protocolError(fromAEAD: error)
        }
    }
}
