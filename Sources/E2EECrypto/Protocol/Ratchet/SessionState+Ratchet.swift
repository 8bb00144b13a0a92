extension SessionState {
    /// Encrypts `plaintext` with the next sending message key and a fresh random nonce from
    /// `random` (carried in the header, §3.4). While ``awaitingReply``, the result is a prekey
    /// message carrying the X3DH header.
    /// - Returns: the advanced state and the wire bytes. Persist the state before the bytes
    ///   leave the process (the key comes from the chain; a retry resends the stored bytes).
    /// - Throws: ``ProtocolError/cannotSendYet`` without a sending chain,
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` when the chain's counter is exhausted,
    ///   ``ProtocolError/crypto(_:)`` (e.g. AES-GCM unavailable).
    func encrypting(_ plaintext: some ByteView, using random: some RandomSource) throws -> (state: SessionState, message: [UInt8]) {
        guard let chainKey = sendingChain else { throw ProtocolError.cannotSendYet }
        guard sendCount < UInt32.max else {
            throw ProtocolError.limitExceeded(.sessionState, limit: Int(UInt32.max), actual: Int(sendCount))
        }
        var state = self
        let (messageKey, nextChain) = RatchetKDF.chain(chainKey)
        let header = MessageHeader(ratchetKey: sendingRatchet.publicKey, previousCounter: previousSendCount, counter: sendCount,
                                   nonce: random.bytes(count: MessageHeader.nonceLength))
        let ciphertext = try RatchetKDF.seal(plaintext, messageKey: messageKey, nonce: header.nonce, associatedData: associatedData + header.bytes)
        state.sendingChain = nextChain
        state.sendCount += 1
        let normal = NormalMessage(header: header, ciphertext: ciphertext)
        guard role == .initiator, awaitingReply else { return (state, normal.bytes) }
        let prekey = PrekeyMessage(identity: localIdentity, baseKey: baseKey, signedPrekeyID: signedPrekeyID,
                                   oneTimePrekeyID: oneTimePrekeyID, message: normal)
        return (state, prekey.bytes)
    }

    /// Decrypts `message` on a copy of this state (docs/spec/protocol.md §3): a stored skipped key first,
    /// else a DH ratchet step for a new ratchet key, skipping within the limits.
    /// - Returns: the advanced state and the plaintext; `self` is never modified.
    /// - Throws: ``ProtocolError/tooFarAhead(jump:limit:)`` when either chain would skip more
    ///   than ``ProtocolLimits/maxRatchetSkip`` (checked before any derivation),
    ///   ``ProtocolError/tooOld`` for an index already passed with no stored key,
    ///   ``ProtocolError/badTag`` when the AEAD does not verify,
    ///   ``ProtocolError/allZeroSharedSecret``, ``ProtocolError/limitExceeded(_:limit:actual:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for a ratchet key with no receiving chain.
    func decrypting(_ message: NormalMessage, using random: some RandomSource) throws -> (state: SessionState, plaintext: SecretBytes) {
        var state = self
        let header = message.header
        let associatedData = associatedData + header.bytes
        if let messageKey = state.skipped.take(ratchetKey: header.ratchetKey, counter: header.counter) {
            let plaintext = try RatchetKDF.open(message.ciphertext, messageKey: messageKey, nonce: header.nonce, associatedData: associatedData)
            state.awaitingReply = false
            return (state, plaintext)
        }
        let limit = ProtocolLimits.maxRatchetSkip
        if header.ratchetKey != state.remoteRatchet {
            let oldChainSkip = state.receivingChain == nil ? 0 : max(0, Int(header.previousCounter) - Int(state.receiveCount))
            guard oldChainSkip <= limit else { throw ProtocolError.tooFarAhead(jump: oldChainSkip, limit: limit) }
            guard Int(header.counter) <= limit else { throw ProtocolError.tooFarAhead(jump: Int(header.counter), limit: limit) }
            if state.receivingChain != nil { state.skipReceiving(until: header.previousCounter) }
            try state.ratchetStep(remote: header.ratchetKey, using: random)
        } else {
            let skip = Int(header.counter) - Int(state.receiveCount)
            guard skip >= 0 else { throw ProtocolError.tooOld }
            guard skip <= limit else { throw ProtocolError.tooFarAhead(jump: skip, limit: limit) }
        }
        state.skipReceiving(until: header.counter)
        guard let chainKey = state.receivingChain else {
            // Only the initiator's first remote key (SPK_B) has no receiving chain; no honest
            // message is ever sent under it.
            throw ProtocolError.malformed(.header, reason: "no receiving chain for this ratchet key")
        }
        guard state.receiveCount < UInt32.max else {
            throw ProtocolError.limitExceeded(.sessionState, limit: Int(UInt32.max), actual: Int(state.receiveCount))
        }
        let (messageKey, nextChain) = RatchetKDF.chain(chainKey)
        let plaintext = try RatchetKDF.open(message.ciphertext, messageKey: messageKey, nonce: header.nonce, associatedData: associatedData)
        state.receivingChain = nextChain
        state.receiveCount += 1
        state.awaitingReply = false
        state.skipped.trim()
        return (state, plaintext)
    }

    /// Stores the keys of the current receiving chain up to (not including) index `until`.
    private mutating func skipReceiving(until target: UInt32) {
        guard var chainKey = receivingChain, let ratchetKey = remoteRatchet else { return }
        while receiveCount < target {
            let (messageKey, next) = RatchetKDF.chain(chainKey)
            skipped.append(.init(ratchetKey: ratchetKey, counter: receiveCount, messageKey: messageKey))
            chainKey = next
            receiveCount += 1
        }
        receivingChain = chainKey
    }

    /// The DH ratchet step for a new remote ratchet key: a receiving chain from the current
    /// sending key pair, then a fresh sending key pair and its chain.
    private mutating func ratchetStep(remote: X25519.PublicKey, using random: some RandomSource) throws {
        previousSendCount = sendCount
        sendCount = 0
        receiveCount = 0
        remoteRatchet = remote
        let receiving = try RatchetKDF.root(rootKey, diffieHellman(sendingRatchet, remote))
        receivingChain = receiving.chainKey
        sendingRatchet = X25519.PrivateKey(using: random)
        let sending = try RatchetKDF.root(receiving.rootKey, diffieHellman(sendingRatchet, remote))
        rootKey = sending.rootKey
        sendingChain = sending.chainKey
    }
}
