import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The pure pairwise step of a DM or SKD entry from one sender device (docs/spec/protocol.md
/// §2, §3, T16): from the device's pins and session record — and, for a prekey message, the
/// prekeys it names and the identity the server lists, once the lane has loaded them — it
/// decides whether the entry decrypts (on a copy: nothing is committed until the envelope
/// verifies), waits for a key, or is refused. No I/O, no lock, no clock: when it needs
/// something not loaded yet it says so (``Decision/needsPrekeys`` ``Decision/needsListedIdentity``),
/// and the lane loads it and asks again with the same input plus the answer.
enum PairwiseStep {
    /// Everything the step looks at.
    struct Input {
        /// The entry for this device.
        var message: PairwiseMessage
        /// The sender (user, device) the envelope's device resolved to.
        var userID: UserID
        var deviceID: DeviceID
        /// Every pin of the device (normally one, under its user), and the first one's blob parsed.
        var pins: [RemoteIdentity]
        var pinned: IdentityBlob?
        /// The session record with (user, device), as the lane holds it.
        var record: SessionRecord?
        /// This device's identity.
        var localIdentity: E2EECrypto.IdentityKeyPair
        /// For a prekey message the device does not answer yet: the prekeys it names and whether
        /// its `EK_A` is accepted (nil: not loaded yet).
        var prekeys: PrekeyLookup?
        /// Whether an uncommitted decryption of this lane already accepted the message's `EK_A`.
        var acceptedInLane: Bool
        /// The identity the server lists for the device, once asked (nil: not asked yet).
        var listed: ListedAnswer?
        /// Unix seconds now (the one-time prekey grace window; when a restart was asked).
        var now: Int64
    }

    /// What the step decided.
    enum Decision {
        /// Decrypted on a copy; the effects commit only once the envelope verifies.
        case decrypted(PendingDecryption)
        /// The entry waits for this key (``WaitingKey``).
        case waiting(String)
        /// A prekey message: load the prekeys it names, then ask again.
        case needsPrekeys
        /// A prekey message from a device nothing pinned: ask the server's listing, then ask again.
        case needsListedIdentity
    }

    /// Whether the record already answers `prekey` (its sender has had no reply yet, so it
    /// keeps sending prekey messages): that state decrypts it, and no prekey is read (§2 step 1).
    static func answers(_ record: SessionRecord?, _ prekey: PrekeyMessage) -> Bool {
        record.map { [$0.current] + $0.archived }?.contains { $0.role == .responder && $0.baseKey == prekey.baseKey } ?? false
    }

    /// Decides the entry.
    /// - Throws: ``ReceiveRefusal`` (`senderMismatch`: the device is pinned under another user
    ///   or not listed for its user; `identityChanged` with the claim to record; `tooFarAhead`
    ///   with the ratchet restart to record, §3.17), ``ProtocolError`` and ``CryptoError`` from
    ///   the ratchet and X3DH, ``KeyStoreError`` for a stored prekey that does not convert —
    ///   each a refusal of this message only.
    static func decide(_ input: Input, using random: some RandomSource) throws -> Decision {
        guard !input.pins.contains(where: { $0.userID != input.userID.rawValue }) else { throw ReceiveRefusal(.senderMismatch) }
        do {
            switch input.message {
            case .normal(let normal):
                guard let record = input.record else { return .waiting(WaitingKey.session(userID: input.userID, deviceID: input.deviceID)) }
                return .decrypted(try record.decrypt(normal, using: random))
            case .prekey(let prekey):
                return try respond(to: prekey, input, using: random)
            }
        } catch ProtocolError.tooFarAhead {
            // A broken ratchet restarts (§3.17): this device starts a new one with the sender at
            // its next send. The header is not authenticated — anyone who can post can ask — so
            // the refusal only asks; the send side restarts at most once an hour per device.
            let request = SessionRestartRequest(userID: input.userID.rawValue, deviceID: input.deviceID.rawValue,
                                                requestedAt: StoreTime(microseconds: input.now * 1_000_000))
            throw ReceiveRefusal(.tooFarAhead, sessionRestart: request)
        }
    }

    private static func respond(to prekey: PrekeyMessage, _ input: Input, using random: some RandomSource) throws -> Decision {
        let answered = answers(input.record, prekey)
        guard answered || input.prekeys != nil else { return .needsPrekeys }
        let lookup = answered ? PrekeyLookup(signedPrekey: nil, oneTimePrekey: nil, ephemeralKeyAccepted: false) : input.prekeys
        var accepted = Set<X25519.PublicKey>()
        if lookup?.ephemeralKeyAccepted == true || input.acceptedInLane { accepted.insert(prekey.baseKey) }
        var context = ResponderContext(
            localIdentity: input.localIdentity, pinnedIdentity: input.pinned, listedIdentity: nil,
            signedPrekeys: try lookup?.signedPrekey.map { [try StoredKeyConversions.signedPrekey($0)] } ?? [],
            oneTimePrekeys: try lookup?.oneTimePrekey.map { [try StoredKeyConversions.oneTimePrekey($0)] } ?? [],
            acceptedBaseKeys: accepted, now: input.now)
        let waitsForIdentity = Decision.waiting(WaitingKey.identity(userID: input.userID, deviceID: input.deviceID))
        do {
            var outcome = try X3DH.respond(to: prekey, record: input.record, context: context, using: random)
            if case .needsListedIdentity = outcome {
                switch input.listed {
                case nil: return .needsListedIdentity
                case .unavailable?: return waitsForIdentity
                case .notListed?: throw ReceiveRefusal(.senderMismatch)
                case .listed(let blob)?:
                    context.listedIdentity = blob
                    outcome = try X3DH.respond(to: prekey, record: input.record, context: context, using: random)
                }
            }
            guard case .decrypted(let pending) = outcome else { return waitsForIdentity }
            return .decrypted(pending)
        } catch ProtocolError.identityMismatch where input.pinned != nil && input.pinned != prekey.identity {
            let claim = RemoteIdentityClaim(userID: input.userID.rawValue, deviceID: input.deviceID.rawValue, identityBlob: prekey.identity.bytes)
            throw ReceiveRefusal(.identityChanged, identityChange: claim)
        }
    }
}
