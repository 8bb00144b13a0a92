import E2EECrypto
import E2EEKeyStore

/// The key state one serial lane works on: loaded from the store on first use, then kept in
/// memory and advanced as the lane decrypts, so the next message sees the uncommitted result
/// of the previous one. Owned by one lane task; discarded if a commit fails.
final class LaneState {
    /// A receiving sender-key state with its stored metadata.
    struct SenderKey {
        var record: ReceiverSenderKey
        var state: SenderKeyReceivingState
    }

    private let store: KeyStore
    private var pinsByDevice: [String: [RemoteIdentity]] = [:]
    private var sessions: [String: SessionRecord?] = [:]
    private var senderKeys: [SenderKeyAddress: SenderKey?] = [:]
    /// `EK_A`s accepted by this lane's uncommitted decryptions.
    private(set) var acceptedBaseKeys: Set<[UInt8]> = []
    private var parsedIDs: [String: WireUUID?] = [:]
    /// Ids already handled in this run (a re-drive never handles a message twice).
    var handled: Set<String> = []
    /// Per envelope hash, the message of this run that took those bytes (any outcome but a
    /// refusal): a later copy is its duplicate.
    var acceptedByHash: [[UInt8]: String] = [:]

    init(store: KeyStore) { self.store = store }

    /// Every pin of `deviceID` (normally under one user).
    func pins(deviceID: String) async throws -> [RemoteIdentity] {
        if let cached = pinsByDevice[deviceID] { return cached }
        let loaded = try await store.remoteIdentities(deviceID: deviceID)
        pinsByDevice[deviceID] = loaded
        return loaded
    }

    /// The session record with (user, device), if any.
    func session(userID: String, deviceID: String) async throws -> SessionRecord? {
        let key = "\(userID)/\(deviceID)"
        if let cached = sessions[key] { return cached }
        let record = try await store.currentSession(userID: userID, deviceID: deviceID).map { try Self.decodeRecord($0.state) }
        sessions[key] = record
        return record
    }

    /// The receiving sender-key state at `address`, if any.
    func senderKey(_ address: SenderKeyAddress) async throws -> SenderKey? {
        if let cached = senderKeys[address] { return cached }
        let loaded = try await store.receiverSenderKey(address).map { SenderKey(record: $0, state: try SenderKeyReceivingState(serialized: $0.state)) }
        senderKeys[address] = loaded
        return loaded
    }

    /// `text` as a wire UUID (nil when it is not a lower-case UUID), parsed once per lane: a
    /// lane sees the same channel and device ids over and over.
    func uuid(_ text: String) -> WireUUID? {
        if let cached = parsedIDs[text] { return cached }
        let parsed = try? WireUUID(text: text)
        if parsedIDs.count < 1_024 { parsedIDs[text] = parsed }
        return parsed
    }

    /// The lane's current state at `address`, if loaded or made.
    func cachedSenderKey(_ address: SenderKeyAddress) -> SenderKey? { senderKeys[address] ?? nil }

    /// The lane's current session record with (user, device), if loaded or made.
    func cachedSession(userID: String, deviceID: String) -> SessionRecord? { sessions["\(userID)/\(deviceID)"] ?? nil }

    /// Records a decryption's session effects for the following messages of the lane.
    func didDecrypt(userID: String, deviceID: String, effects: SessionEffects) {
        sessions["\(userID)/\(deviceID)"] = effects.record
        if let accepted = effects.acceptedBaseKey { acceptedBaseKeys.insert(accepted.baseKey.rawRepresentation) }
        if let blob = effects.identityToPin {
            var pins = pinsByDevice[deviceID] ?? []
            pins.append(RemoteIdentity(userID: userID, deviceID: deviceID, identityBlob: blob.bytes, firstSeenAt: .now(), verification: .unverified))
            pinsByDevice[deviceID] = pins
        }
    }

    /// Records a new or advanced sender-key state.
    func didStore(_ key: SenderKey) {
        senderKeys[key.record.address] = key
    }

    /// A stored session: the serialised ``SessionRecord``; a store holding a bare
    /// ``SessionState`` (one state, no archive) is read as a record of that state.
    static func decodeRecord(_ bytes: SecretBytes) throws -> SessionRecord {
        do {
            return try SessionRecord(serialized: bytes)
        } catch {
            guard let state = try? SessionState(serialized: bytes) else { throw error }
            return SessionRecord(current: state)
        }
    }
}
