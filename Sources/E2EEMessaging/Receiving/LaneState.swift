import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

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
    private var pinsByDevice: [DeviceID: [RemoteIdentity]] = [:]
    private var sessions: [String: SessionRecord?] = [:]
    /// Per device, the session rows as committed, by ratchet state (role and base key).
    private var sessionRows: [String: [String: String]] = [:]
    private var senderKeys: [SenderKeyAddress: SenderKey?] = [:]
    /// `EK_A`s accepted by this lane's uncommitted decryptions.
    private(set) var acceptedBaseKeys: Set<[UInt8]> = []
    private var parsedIDs: [String: WireUUID?] = [:]
    private var parsedPins: [String: (bytes: [UInt8], blob: IdentityBlob)] = [:]
    /// Ids already handled in this run (a re-drive never handles a message twice).
    var handled: Set<String> = []
    /// Per envelope hash, the message of this run that took those bytes (any outcome but a
    /// refusal): a later copy is its duplicate.
    var acceptedByHash: [ContentDigest: String] = [:]

    /// Sender-key states read with the batch's plan (`nil`: none stored then).
    private let plannedKeys: [SenderKeyAddress: ReceiverSenderKey?]
    /// Per channel, whether this device has not accepted it (a request, or declined).
    private var unaccepted: [ChannelID: Bool] = [:]
    /// Per sender device, whether its messages wait for it to be linked (§10.8).
    private var unlinkedSenders: [String: Bool] = [:]
    /// Whether (and for which transfer) messages from other users wait for a trust part.
    private var awaitedTransfer: String??
    /// Per DM whose participants are fixed, what ``dmParticipants(channelID:)`` read.
    private var participants: [ChannelID: DMParticipants] = [:]
    /// Per channel, what ``linkStanding(channelID:ownUserID:)`` read.
    private var linkStandings: [ChannelID: LinkChannelStanding] = [:]

    init(store: KeyStore, plannedKeys: [SenderKeyAddress: ReceiverSenderKey?] = [:]) {
        self.store = store
        self.plannedKeys = plannedKeys
    }

    /// Whether this device has not accepted `channelID` — it is a request, or was declined
    /// (docs/spec/protocol.md §5.9): other users' messages there wait. Read once per lane.
    /// - Throws: key store errors.
    func isUnaccepted(channelID: ChannelID) async throws -> Bool {
        if let known = unaccepted[channelID] { return known }
        let standing = try await store.briefRead { [store] db in try store.channelTrustStore.loadPin(channelID: channelID.rawValue, db)?.standing }
        let waits = standing == .request || standing == .declined
        unaccepted[channelID] = waits
        return waits
    }

    /// Whether `channelID` is one of our link channels, has only their shape, or neither
    /// (docs/spec/protocol.md §10.22). Read once per lane.
    /// - Throws: key store errors.
    func linkStanding(channelID: ChannelID, ownUserID: UserID) async throws -> LinkChannelStanding {
        if let known = linkStandings[channelID] { return known }
        let record = try await store.briefRead { [store] db in try store.channelStore.loadChannel(id: channelID.rawValue, db) }
        let standing = LinkChannelStanding(record, ownUserID: ownUserID.rawValue)
        linkStandings[channelID] = standing
        return standing
    }

    /// Whether messages from (`userID`, `deviceID`) wait for the device to be linked: its user
    /// has a user key (pinned, or conflicted) and the device is not linked under it
    /// (docs/spec/protocol.md §10.7–§10.8). Read once per device and lane.
    /// - Throws: key store errors.
    /// The transfer whose trust part this new device waits for, if any (read once per lane).
    /// - Throws: key store errors.
    func transferAwaitingTrust() async throws -> String? {
        if let known = awaitedTransfer { return known }
        let read = try await store.briefRead { [store] db in try store.transferAwaitingTrust(db) }
        awaitedTransfer = .some(read)
        return read
    }

    func waitsForLink(userID: UserID, deviceID: DeviceID) async throws -> Bool {
        let key = userID.rawValue + "/" + deviceID.rawValue
        if let known = unlinkedSenders[key] { return known }
        let link = try await store.briefRead { [store] db in try store.contactKeyStore.senderLink(userID: userID.rawValue, deviceID: deviceID.rawValue, db) }
        let waits = link == false
        unlinkedSenders[key] = waits
        return waits
    }

    /// A DM's fixed participants (empty while none are fixed) and whether this device has
    /// learned the channel (stored or pinned). Once fixed, participants never change, so a
    /// fixed pair is read once per lane (a lane's messages of one DM would otherwise read the
    /// same rows each); while none are fixed — a request, which another lane's message from our
    /// own device may settle at any moment — every message reads them again.
    /// - Throws: key store errors.
    func dmParticipants(channelID: ChannelID) async throws -> DMParticipants {
        if let known = participants[channelID] { return known }
        let read = try await store.briefRead { [store] db in
            let pin = try store.channelTrustStore.loadPin(channelID: channelID.rawValue, db)
            return DMParticipants(users: try store.recipientStore.loadParticipants(channelID: channelID.rawValue, db),
                                  learned: try pin != nil || store.channelStore.loadChannel(id: channelID.rawValue, db) != nil,
                                  pinnedAsGroup: pin?.isDM == false)
        }
        if !read.users.isEmpty { participants[channelID] = read }
        return read
    }

    /// Records participants a message of this lane fixes (its write stores them), so the lane's
    /// later messages see them before the commit.
    func fixParticipants(_ users: Set<String>, channelID: ChannelID) {
        participants[channelID] = DMParticipants(users: users, learned: true, pinnedAsGroup: false)
    }

    /// `pin`'s identity blob, parsed (its keys validated) once per lane rather than per message.
    /// - Throws: ``ProtocolError`` for a stored blob that does not parse.
    func pinnedIdentity(_ pin: RemoteIdentity?) throws -> IdentityBlob? {
        guard let pin else { return nil }
        let key = "\(pin.userID)/\(pin.deviceID)"
        if let parsed = parsedPins[key], parsed.bytes == pin.identityBlob { return parsed.blob }
        let blob = try IdentityBlob(bytes: pin.identityBlob)
        parsedPins[key] = (pin.identityBlob, blob)
        return blob
    }

    /// Every pin of `deviceID` (normally under one user); read with the session rows of
    /// (`userID`, `deviceID`), which the pairwise step needs next.
    func pins(userID: UserID, deviceID: DeviceID) async throws -> [RemoteIdentity] {
        if let cached = pinsByDevice[deviceID] { return cached }
        try await loadPairwiseKeys(userID: userID, deviceID: deviceID)
        return pinsByDevice[deviceID] ?? []
    }

    /// The session record with (user, device), if any: the current row and up to
    /// ``ProtocolLimits/maxArchivedSessions`` archived rows, most recently used first.
    func session(userID: UserID, deviceID: DeviceID) async throws -> SessionRecord? {
        let key = "\(userID)/\(deviceID)"
        if let cached = sessions[key] { return cached }
        try await loadPairwiseKeys(userID: userID, deviceID: deviceID)
        return sessions[key] ?? nil
    }

    /// Reads whichever of the device's pins and the (user, device) session rows are not
    /// loaded yet, in one read.
    private func loadPairwiseKeys(userID: UserID, deviceID: DeviceID) async throws {
        let key = "\(userID)/\(deviceID)"
        let needsPins = pinsByDevice[deviceID] == nil
        let needsSession = sessions.index(forKey: key) == nil
        guard needsPins || needsSession else { return }
        let remote = RemoteDeviceKey(userID: userID.rawValue, deviceID: deviceID.rawValue)
        let loaded = try await store.receiveLaneKeys(devices: needsPins ? [deviceID.rawValue] : [], sessions: needsSession ? [remote] : [],
                                                     sessionLimit: 1 + ProtocolLimits.maxArchivedSessions)
        if needsPins { pinsByDevice[deviceID] = loaded.pins[deviceID.rawValue] ?? [] }
        if needsSession { try install(sessionRows: loaded.sessions[remote] ?? [], key: key) }
    }

    /// Rebuilds the record of `key` from its stored rows (current first).
    private func install(sessionRows rows: [StoredSession], key: String) throws {
        var record: SessionRecord?
        var ids: [String: String] = [:]
        if let current = rows.first, current.isCurrent {
            let states = try rows.map { try SessionState(serialized: $0.state) }
            for (row, state) in zip(rows, states) { ids[Self.stateKey(state)] = row.id }
            // Rebuilt oldest first, so that each install archives the one before it.
            var built = SessionRecord(current: states[states.count - 1])
            for state in states.dropLast().reversed() { built = SessionRecord.installing(state, into: built) }
            record = built
        }
        sessions[key] = record
        sessionRows[key] = ids
    }

    /// The rows to store for the lane's current record with (user, device): every state of
    /// the record, matched to its committed row (a state new to the store gets a new row id),
    /// and the rows noted as committed for the next chunk. Call only when the write will be
    /// committed with the chunk (a failed commit ends the lane).
    func sessionWrite(userID: UserID, deviceID: DeviceID) -> SessionUpdate? {
        let key = "\(userID)/\(deviceID)"
        guard let record = sessions[key] ?? nil else { return nil }
        var ids = sessionRows[key] ?? [:]
        let states = [record.current] + record.archived
        let writes = states.enumerated().map { index, state in
            let stateKey = Self.stateKey(state)
            let id = ids[stateKey] ?? UUID().uuidString.lowercased()
            ids[stateKey] = id
            return SessionUpdate.State(sessionID: id, state: state.serialized(), isCurrent: index == 0)
        }
        sessionRows[key] = ids
        return SessionUpdate(userID: userID.rawValue, deviceID: deviceID.rawValue, states: writes)
    }

    /// Names a ratchet state among a device's sessions: its role and base key (`EK_A`).
    private static func stateKey(_ state: SessionState) -> String {
        "\(state.role.rawValue)/" + state.baseKey.rawRepresentation.map { String($0, radix: 16) }.joined(separator: ".")
    }

    /// The receiving sender-key state at `address`, if any.
    func senderKey(_ address: SenderKeyAddress) async throws -> SenderKey? {
        if let cached = senderKeys[address] { return cached }
        let record: ReceiverSenderKey?
        if let planned = plannedKeys[address] { record = planned } else { record = try await store.receiverSenderKey(address) }
        let loaded = try record.map { SenderKey(record: $0, state: try SenderKeyReceivingState(serialized: $0.state)) }
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

    /// Records a decryption's session effects for the following messages of the lane.
    func didDecrypt(userID: UserID, deviceID: DeviceID, effects: SessionEffects) {
        sessions["\(userID)/\(deviceID)"] = effects.record
        if let accepted = effects.acceptedBaseKey { acceptedBaseKeys.insert(accepted.baseKey.rawRepresentation) }
        if let blob = effects.identityToPin {
            var pins = pinsByDevice[deviceID] ?? []
            pins.append(RemoteIdentity(userID: userID.rawValue, deviceID: deviceID.rawValue, identityBlob: blob.bytes, firstSeenAt: .now(), verification: .unverified))
            pinsByDevice[deviceID] = pins
        }
    }

    /// Records a new or advanced sender-key state.
    func didStore(_ key: SenderKey) {
        senderKeys[key.record.address] = key
    }
}

/// A DM's participants as a lane reads them.
struct DMParticipants: Sendable {
    /// The two fixed participants, or none while the DM is a request (or was never learned).
    var users: Set<String>
    /// Whether this device has learned the channel (stored or pinned).
    var learned: Bool
    /// Whether the channel is pinned as a group (a DM's participants are then never fixed).
    var pinnedAsGroup: Bool
}
