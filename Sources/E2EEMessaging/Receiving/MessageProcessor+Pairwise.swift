import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The pairwise step of a DM or SKD entry: decrypted (not yet committed), or waiting for a key.
enum PairwiseResult {
    /// Decrypted on a copy; commit the effects only after the envelope verifies.
    case decrypted(PendingDecryption)
    /// Waiting for this key (``WaitingKey``).
    case waiting(String)
}

/// What the server lists for a device, as far as the receiver can tell now.
enum ListedAnswer {
    /// The listed identity blob.
    case listed(IdentityBlob)
    /// The user's list (even refreshed) does not contain the device: not one of theirs.
    case notListed
    /// The list could not be fetched now: wait and retry.
    case unavailable
}

extension MessageProcessor {
    /// Decrypts a pairwise message from (user, device) (§2, §3). The device must not be pinned
    /// under another user (T16). A normal message needs a session (else it waits for one); a
    /// prekey message runs ``X3DH/respond(to:record:context:using:)`` with the pin, or with
    /// the listed identity when nothing is pinned (fetched only then; unavailable → waits).
    /// A pinned device that presents another identity is an identity change: refused, recorded.
    func decryptPairwise(_ message: PairwiseMessage, userID: UserID, deviceID: DeviceID, lane: LaneState) async throws -> PairwiseResult {
        let pins = try await lane.pins(userID: userID, deviceID: deviceID)
        guard !pins.contains(where: { $0.userID != userID.rawValue }) else { throw ReceiveRefusal(.senderMismatch) }
        let pinned = try lane.pinnedIdentity(pins.first)
        let record = try await lane.session(userID: userID, deviceID: deviceID)
        switch message {
        case .normal(let normal):
            guard let record else { return .waiting(WaitingKey.session(userID: userID, deviceID: deviceID)) }
            return .decrypted(try record.decrypt(normal, using: random))
        case .prekey(let prekey):
            return try await respond(to: prekey, record: record, pinned: pinned, userID: userID, deviceID: deviceID, lane: lane)
        }
    }

    private func respond(to prekey: PrekeyMessage, record: SessionRecord?, pinned: IdentityBlob?, userID: UserID, deviceID: DeviceID,
                         lane: LaneState) async throws -> PairwiseResult {
        // A prekey message of a session this device already answers (its sender has had no
        // reply yet, so everything it sends is a prekey message) decrypts in that state (§2
        // step 1), which never consults the prekeys or the accepted keys: they are not read.
        let answered = record.map { [$0.current] + $0.archived }?.contains { $0.role == .responder && $0.baseKey == prekey.baseKey } ?? false
        let lookup = answered
            ? PrekeyLookup(signedPrekey: nil, oneTimePrekey: nil, ephemeralKeyAccepted: false)
            : try await store.prekeyLookup(signedPrekeyID: prekey.signedPrekeyID, oneTimePrekeyID: prekey.oneTimePrekeyID,
                                           ephemeralKey: prekey.baseKey.rawRepresentation)
        var accepted = Set<X25519.PublicKey>()
        if lookup.ephemeralKeyAccepted || lane.acceptedBaseKeys.contains(prekey.baseKey.rawRepresentation) { accepted.insert(prekey.baseKey) }
        var context = ResponderContext(
            localIdentity: device.identity, pinnedIdentity: pinned, listedIdentity: nil,
            signedPrekeys: try lookup.signedPrekey.map { [try StoredKeyConversions.signedPrekey($0)] } ?? [],
            oneTimePrekeys: try lookup.oneTimePrekey.map { [try StoredKeyConversions.oneTimePrekey($0)] } ?? [],
            acceptedBaseKeys: accepted, now: nowSeconds)
        do {
            var outcome = try X3DH.respond(to: prekey, record: record, context: context, using: random)
            if case .needsListedIdentity = outcome {
                switch await listedIdentity(userID: userID, deviceID: deviceID) {
                case .unavailable: return .waiting(WaitingKey.identity(userID: userID, deviceID: deviceID))
                case .notListed: throw ReceiveRefusal(.senderMismatch)
                case .listed(let blob):
                    context.listedIdentity = blob
                    outcome = try X3DH.respond(to: prekey, record: record, context: context, using: random)
                }
            }
            guard case .decrypted(let pending) = outcome else { return .waiting(WaitingKey.identity(userID: userID, deviceID: deviceID)) }
            return .decrypted(pending)
        } catch ProtocolError.identityMismatch where pinned != nil && pinned != prekey.identity {
            let claim = RemoteIdentityClaim(userID: userID.rawValue, deviceID: deviceID.rawValue, identityBlob: prekey.identity.bytes)
            throw ReceiveRefusal(.identityChanged, identityChange: claim)
        }
    }

    /// The identity the server lists for (user, device): cached first, refreshed when the
    /// device is missing (it may be new).
    func listedIdentity(userID: UserID, deviceID: DeviceID) async -> ListedAnswer {
        do {
            var listed = try await listedIdentities.listedIdentities(userID: userID, refresh: false)
            if listed[deviceID.rawValue] == nil { listed = try await listedIdentities.listedIdentities(userID: userID, refresh: true) }
            guard let blob = listed[deviceID.rawValue] else { return .notListed }
            return .listed(blob)
        } catch {
            return .unavailable
        }
    }
}
