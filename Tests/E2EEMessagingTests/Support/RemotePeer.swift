import E2EECrypto
import E2EEKeyStore
@testable import E2EEMessaging

/// Another device, acting through E2EECrypto directly: starts sessions with X3DH from a
/// bundle, writes DM envelopes, sender key distributions and group messages exactly as a real
/// client would, and wraps them as the server's message rows. Used by one test task at a time.
final class RemotePeer: @unchecked Sendable {
    let userID: String
    let deviceID: String
    let identity: E2EECrypto.IdentityKeyPair
    private(set) var sessions: [String: SessionRecord] = [:]
    private(set) var senderKeys: [String: SenderKeySendingState] = [:]

    init(userID: String = newID(), deviceID: String = newID(), identity: E2EECrypto.IdentityKeyPair = E2EECrypto.IdentityKeyPair()) {
        self.userID = userID
        self.deviceID = deviceID
        self.identity = identity
    }

    var deviceUUID: WireUUID { get throws { try WireUUID(text: deviceID) } }

    /// Starts a new session with the bundle's device (X3DH, initiator): installed as current.
    func connect(to bundle: PrekeyBundle) throws {
        let started = try X3DH.initiate(localIdentity: identity, bundle: bundle, pinnedIdentity: nil)
        sessions[bundle.deviceID.text] = SessionRecord.installing(started.state, into: sessions[bundle.deviceID.text])
    }

    /// Replaces the session record with `device` (to send from an older session again).
    func setSession(_ record: SessionRecord?, with device: String) { sessions[device] = record }

    /// Decrypts a reply from `device` (after it, this side sends normal messages).
    func receiveReply(_ bytes: [UInt8], from device: String) throws {
        guard let record = sessions[device], case .normal(let message) = try PairwiseMessage(bytes: bytes) else { throw SupportError("no session or not normal") }
        sessions[device] = try record.decrypt(message).effects.record
    }

    /// A payload JSON (§6).
    func payload(_ text: String, editOf: String? = nil, replyTo: String? = nil, id: WireUUID? = nil) throws -> SecretBytes {
        let payloadID = try id ?? WireUUID(text: newID())
        return try MessagePayload(id: payloadID, timestamp: 1_700_000_000_000, text: text, editOf: editOf.map { try WireUUID(text: $0) },
                                  replyTo: replyTo.map { try WireUUID(text: $0) }).encodedJSON()
    }

    /// A DM envelope of `payload` for `devices` (each needs a session).
    func dmEnvelope(_ payload: SecretBytes, channel: String, to devices: [String]) throws -> DMEnvelope {
        try DMEnvelope.seal(payload: payload, channel: WireUUID(text: channel), senderDevice: deviceUUID,
                            recipients: devices.map { try WireUUID(text: $0) }, using: SystemRandom()) { device, plaintext in
            try self.pairwiseEncrypt(plaintext, to: device.text)
        }
    }

    /// A sender key distribution of this device's sender key in `channel` (made on first use).
    func skdEnvelope(channel: String, to devices: [String]) throws -> SKDEnvelope {
        let state = try senderKey(channel: channel)
        return try SKDEnvelope.seal(state.distribution, senderDevice: deviceUUID, recipients: devices.map { try WireUUID(text: $0) }) { device, plaintext in
            try self.pairwiseEncrypt(plaintext, to: device.text)
        }
    }

    /// A group message of `payload` in `channel` (advances the sender key).
    func groupEnvelope(_ payload: SecretBytes, channel: String) throws -> GroupEnvelope {
        let (envelope, state) = try senderKey(channel: channel).encrypt(payload, senderDevice: deviceUUID)
        senderKeys[channel] = state
        return envelope
    }

    /// Replaces the sender key of `channel` (e.g. one drawn from a seeded random source).
    func setSenderKey(_ state: SenderKeySendingState, channel: String) { senderKeys[channel] = state }

    /// The server's row for `content`, as this device posts it (fields overridable for attacks).
    func posted(_ content: String, kind: EnvelopeKind?, channel: String, at micros: Int64, id: String = newID(), senderID: String? = nil,
                senderDeviceID: String? = nil, protocolVersion: Int = 2, editedAt: Int64? = nil) -> ServerMessage {
        ServerMessage(id: MessageID(id), channelID: ChannelID(channel), senderID: UserID(senderID ?? userID), senderDeviceID: DeviceID(senderDeviceID ?? deviceID), content: content,
                      contentType: kind?.contentType ?? "text", protocolVersion: protocolVersion, replyToID: nil,
                      editedAt: editedAt.map { ServerTimestamp(microseconds: $0) }, createdAt: ServerTimestamp(microseconds: micros))
    }

    /// A DM message row.
    func dm(_ text: String, channel: String, to devices: [String], at micros: Int64, id: String = newID()) throws -> ServerMessage {
        posted(Envelope.dm(try dmEnvelope(payload(text), channel: channel, to: devices)).content(), kind: .dm, channel: channel, at: micros, id: id)
    }

    /// A sender key distribution row.
    func skd(channel: String, to devices: [String], at micros: Int64, id: String = newID()) throws -> ServerMessage {
        posted(Envelope.senderKeyDistribution(try skdEnvelope(channel: channel, to: devices)).content(), kind: .senderKeyDistribution,
               channel: channel, at: micros, id: id)
    }

    /// A group message row.
    func group(_ text: String, channel: String, at micros: Int64, id: String = newID()) throws -> ServerMessage {
        posted(Envelope.group(try groupEnvelope(payload(text), channel: channel)).content(), kind: .group, channel: channel, at: micros, id: id)
    }

    private func senderKey(channel: String) throws -> SenderKeySendingState {
        if let state = senderKeys[channel] { return state }
        let state = SenderKeySendingState.generate(channel: try WireUUID(text: channel), retainedKeyIDs: [], using: SystemRandom())
        senderKeys[channel] = state
        return state
    }

    private func pairwiseEncrypt(_ plaintext: SecretBytes, to device: String) throws -> [UInt8] {
        guard let record = sessions[device] else { throw SupportError("no session with \(device)") }
        let encryption = try record.encrypt(plaintext)
        sessions[device] = encryption.record
        return encryption.message
    }
}
