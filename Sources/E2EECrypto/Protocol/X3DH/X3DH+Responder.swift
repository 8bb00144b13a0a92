extension X3DH {
    /// Bob's processing of a prekey message from one remote device, exactly docs/spec/protocol.md §2
    /// steps 1–5. Nothing is applied: on success the caller verifies the envelope with the
    /// plaintext, then commits ``PendingDecryption/effects`` (new record, accepted `EK_A`,
    /// consumed one-time prekey, identity pin) in one transaction.
    ///
    /// 1. `EK_A` is the base key of a responder state in `record` (current or archived): decrypt
    ///    there; the blob, `spk_id` and `opk_id` must match that state.
    /// 2. `EK_A` is in the accepted set: replay.
    /// 3. The blob must equal the pinned identity, or with none pinned the listed one; with
    ///    neither, ``PrekeyDecryptOutcome/needsListedIdentity``.
    /// 4. Retained SPK by `spk_id`; OPK by `opk_id` (non-zero) if unconsumed or within grace.
    /// 5. Derive `SK`, make the responder state (its ratchet key pair is the SPK pair) and
    ///    decrypt the enclosed message in it.
    /// - Parameters:
    ///   - message: the received prekey message.
    ///   - record: the stored sessions with the sending device, if any.
    ///   - context: this device's keys, pins, accepted set and the listed identity (§2 step 3).
    ///   - random: the source of the responder's new ratchet keys.
    /// - Throws: ``ProtocolError/identityMismatch``, ``ProtocolError/replay`` (an accepted
    ///   `EK_A`, or a known one with other prekey ids), ``ProtocolError/unknownPrekey``, and the
    ///   ratchet's errors (``ProtocolError/badTag``, ``ProtocolError/tooFarAhead(jump:limit:)``,
    ///   ``ProtocolError/tooOld``, ``ProtocolError/allZeroSharedSecret``, …). State is unchanged.
    public static func respond(to message: PrekeyMessage, record: SessionRecord?, context: ResponderContext,
                               using random: some RandomSource = SystemRandom()) throws -> PrekeyDecryptOutcome {
        if let record, let match = record.allStates.enumerated().first(where: { $0.element.role == .responder && $0.element.baseKey == message.baseKey }) {
            let state = match.element
            guard state.remoteIdentity == message.identity else { throw ProtocolError.identityMismatch }
            guard state.signedPrekeyID == message.signedPrekeyID, state.oneTimePrekeyID == message.oneTimePrekeyID else {
                throw ProtocolError.replay
            }
            let (updated, plaintext) = try state.decrypting(message.message, using: random)
            let effects = SessionEffects(record: record.promoting(index: match.offset, to: updated))
            return .decrypted(PendingDecryption(plaintext: plaintext, effects: effects))
        }
        guard !context.acceptedBaseKeys.contains(message.baseKey) else { throw ProtocolError.replay }

        let identityToPin: IdentityBlob?
        if let pinned = context.pinnedIdentity {
            guard pinned == message.identity else { throw ProtocolError.identityMismatch }
            identityToPin = nil
        } else if let listed = context.listedIdentity {
            guard listed == message.identity else { throw ProtocolError.identityMismatch }
            identityToPin = message.identity
        } else {
            return .needsListedIdentity
        }

        guard let signedPrekey = context.signedPrekeys.first(where: { $0.id == message.signedPrekeyID }) else {
            throw ProtocolError.unknownPrekey
        }
        var oneTimePrekey: OneTimePrekey?
        if message.oneTimePrekeyID != 0 {
            guard let found = context.oneTimePrekeys.first(where: { $0.id == message.oneTimePrekeyID && $0.isUsable(at: context.now) }) else {
                throw ProtocolError.unknownPrekey
            }
            oneTimePrekey = found
        }

        let sharedKey = try X3DH.sharedKey(
            diffieHellman(signedPrekey.keyPair, message.identity.dhKey),
            diffieHellman(context.localIdentity.dhKey, message.baseKey),
            diffieHellman(signedPrekey.keyPair, message.baseKey),
            oneTimePrekey.map { try diffieHellman($0.keyPair, message.baseKey) }
        )
        let fresh = SessionState(
            role: .responder, localIdentity: context.localIdentity.publicIdentity, remoteIdentity: message.identity,
            baseKey: message.baseKey, signedPrekeyID: message.signedPrekeyID, oneTimePrekeyID: message.oneTimePrekeyID,
            awaitingReply: false, rootKey: sharedKey, sendingRatchet: signedPrekey.keyPair, remoteRatchet: nil, sendingChain: nil
        )
        let (updated, plaintext) = try fresh.decrypting(message.message, using: random)
        let consumption = oneTimePrekey.flatMap { $0.consumedAt == nil ? OneTimePrekeyConsumption(id: $0.id, time: context.now) : nil }
        let effects = SessionEffects(
            record: SessionRecord.installing(updated, into: record),
            acceptedBaseKey: AcceptedBaseKey(baseKey: message.baseKey, signedPrekeyID: message.signedPrekeyID),
            consumedOneTimePrekey: consumption,
            identityToPin: identityToPin
        )
        return .decrypted(PendingDecryption(plaintext: plaintext, effects: effects))
    }
}
