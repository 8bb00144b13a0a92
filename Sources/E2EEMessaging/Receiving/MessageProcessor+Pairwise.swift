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
    /// Decrypts a pairwise message from (user, device) (§2, §3): the lane's pins and session
    /// record loaded, the decision left to the pure ``PairwiseStep``, which asks for what a
    /// prekey message needs beyond them — the prekeys it names (read only then), the identity
    /// the server lists when nothing is pinned (fetched only then; unavailable → waits).
    func decryptPairwise(_ message: PairwiseMessage, userID: UserID, deviceID: DeviceID, lane: LaneState) async throws -> PairwiseResult {
        let pins = try await lane.pins(userID: userID, deviceID: deviceID)
        var input = PairwiseStep.Input(
            message: message, userID: userID, deviceID: deviceID, pins: pins, pinned: nil, record: nil, localIdentity: device.identity,
            prekeys: nil, acceptedInLane: false, listed: nil, now: nowSeconds)
        if !pins.contains(where: { $0.userID != userID.rawValue }) {
            input.pinned = try lane.pinnedIdentity(pins.first)
            input.record = try await lane.session(userID: userID, deviceID: deviceID)
        }
        if case .prekey(let prekey) = message { input.acceptedInLane = lane.acceptedBaseKeys.contains(prekey.baseKey.rawRepresentation) }
        // Each need is met once, so the step answers within three rounds.
        for _ in 0..<3 {
            switch try PairwiseStep.decide(input, using: random) {
            case .decrypted(let pending): return .decrypted(pending)
            case .waiting(let key): return .waiting(key)
            case .needsPrekeys:
                guard case .prekey(let prekey) = message else { break }
                input.prekeys = try await store.prekeyLookup(signedPrekeyID: prekey.signedPrekeyID, oneTimePrekeyID: prekey.oneTimePrekeyID,
                                                            ephemeralKey: prekey.baseKey.rawRepresentation)
            case .needsListedIdentity:
                input.listed = await listedIdentity(userID: userID, deviceID: deviceID)
            }
        }
        return .waiting(WaitingKey.identity(userID: userID, deviceID: deviceID))
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
