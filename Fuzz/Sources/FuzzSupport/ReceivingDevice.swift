import E2EECrypto

/// A receiving device held in memory: its keys, its sessions with each sending device and the
/// sender keys it installed. ``receive(_:channel:)`` runs the same steps, in the same order, as
/// the messaging layer (envelope → own recipient entry → session or X3DH → pairwise plaintext →
/// payload or sender key distribution → strict payload JSON) and commits the effects only after
/// every step succeeded, the way the key store commits one decryption in one transaction.
public struct ReceivingDevice: Sendable {
    /// What one accepted envelope produced.
    public enum Accepted: Sendable, Equatable {
        /// A DM or group message: its payload's text, with the ciphertext that carried it.
        case message(text: String, ciphertext: [UInt8])
        /// A sender key distribution (installed or already known): its pairwise plaintext.
        case senderKeyDistribution(plaintext: [UInt8])
    }

    /// This device.
    public let deviceID: WireUUID
    /// Unix seconds used for every decision.
    public let now: Int64
    let identity: IdentityKeyPair
    var signedPrekeys: [SignedPrekey]
    var oneTimePrekeys: [OneTimePrekey]
    var acceptedBaseKeys: Set<X25519.PublicKey> = []
    var pins: [WireUUID: IdentityBlob] = [:]
    var listed: [WireUUID: IdentityBlob] = [:]
    var sessions: [WireUUID: SessionRecord] = [:]
    var senderKeys: [SenderKeySlot: SenderKeyReceivingState] = [:]

    /// Where a sender key is kept: channel, sending device and key id.
    struct SenderKeySlot: Hashable, Sendable {
        var channel: WireUUID
        var device: WireUUID
        var keyID: UInt32

        var sortKey: [UInt8] { channel.bytes + device.bytes + withUnsafeBytes(of: keyID.bigEndian, Array.init) }
    }

    init(identity: IdentityKeyPair, deviceID: WireUUID, signedPrekeys: [SignedPrekey], oneTimePrekeys: [OneTimePrekey], now: Int64) {
        self.identity = identity
        self.deviceID = deviceID
        self.signedPrekeys = signedPrekeys
        self.oneTimePrekeys = oneTimePrekeys
        self.now = now
    }

    /// Every piece of state in its stored (serialised) form, in a fixed order: what the key
    /// store would hold for this device. Equal bytes mean equal state.
    public func serializedState() -> [UInt8] {
        var out: [UInt8] = []
        func add(_ bytes: [UInt8]) {
            out += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
        for key in signedPrekeys { add(key.serialized().unprotectedCopy()) }
        for key in oneTimePrekeys { add(key.serialized().unprotectedCopy()) }
        for key in acceptedBaseKeys.map({ $0.rawRepresentation }).sorted(by: { $0.lexicographicallyPrecedes($1) }) { add(key) }
        for (device, blob) in pins.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) { add(device.bytes + blob.bytes) }
        for (device, record) in sessions.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            add(device.bytes + record.serialized().unprotectedCopy())
        }
        let slots = senderKeys.keys.sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
        for slot in slots { add(senderKeys[slot]?.serialized().unprotectedCopy() ?? []) }
        return out
    }

    /// Receives envelope bytes posted in `channel` by the device the envelope names; commits
    /// the effects only when everything succeeded.
    /// - Throws: whatever the first refusing step throws; state is then unchanged.
    public mutating func receive(_ bytes: [UInt8], channel: WireUUID) throws -> Accepted {
        switch try Envelope.decode(bytes) {
        case .dm(let envelope):
            let (pending, commit) = try openPairwise(envelope.pairwiseMessage(for: deviceID), from: envelope.senderDevice)
            let payload = try envelope.open(pairwisePlaintext: pending.plaintext, channel: channel)
            let text = try MessagePayload(json: payload.unprotectedCopy()).text
            commit(&self)
            return .message(text: text, ciphertext: envelope.payloadCiphertext)
        case .senderKeyDistribution(let envelope):
            let (pending, commit) = try openPairwise(envelope.pairwiseMessage(for: deviceID), from: envelope.senderDevice)
            guard case .senderKeyDistribution(let distribution) = try PairwisePlaintext.decode(pending.plaintext) else {
                throw ProtocolError.wrongEnvelopeType
            }
            let slot = SenderKeySlot(channel: channel, device: envelope.senderDevice, keyID: distribution.keyID)
            let outcome = try distribution.process(postedChannel: channel, senderDevice: envelope.senderDevice, existing: senderKeys[slot], now: now)
            commit(&self)
            if case .install(let state) = outcome { senderKeys[slot] = state }
            return .senderKeyDistribution(plaintext: pending.plaintext.unprotectedCopy())
        case .group(let envelope):
            let slot = SenderKeySlot(channel: channel, device: envelope.senderDevice, keyID: envelope.keyID)
            guard let state = senderKeys[slot] else { throw ProtocolError.unknownSenderKey }
            let (payload, next) = try state.decrypt(envelope, channel: channel, now: now)
            let text = try MessagePayload(json: payload.unprotectedCopy()).text
            senderKeys[slot] = next
            return .message(text: text, ciphertext: envelope.ciphertext)
        }
    }

    /// Decrypts one pairwise message from `device`; returns the plaintext and the commit of its
    /// effects (applied by the caller once the rest of the envelope checked out).
    private func openPairwise(_ bytes: [UInt8], from device: WireUUID) throws -> (PendingDecryption, (inout ReceivingDevice) -> Void) {
        let pending: PendingDecryption
        switch try PairwiseMessage(bytes: bytes) {
        case .normal(let message):
            guard let record = sessions[device] else { throw ProtocolError.unknownSession }
            pending = try record.decrypt(message, using: SystemRandom())
        case .prekey(let message):
            let context = ResponderContext(localIdentity: identity, pinnedIdentity: pins[device], listedIdentity: listed[device],
                                           signedPrekeys: signedPrekeys, oneTimePrekeys: oneTimePrekeys,
                                           acceptedBaseKeys: acceptedBaseKeys, now: now)
            guard case .decrypted(let decrypted) = try X3DH.respond(to: message, record: sessions[device], context: context, using: SystemRandom()) else {
                throw ProtocolError.identityMismatch
            }
            pending = decrypted
        }
        let effects = pending.effects
        return (pending, { device_ in device_.apply(effects, from: device) })
    }

    private mutating func apply(_ effects: SessionEffects, from device: WireUUID) {
        sessions[device] = effects.record
        if let accepted = effects.acceptedBaseKey { acceptedBaseKeys.insert(accepted.baseKey) }
        if let consumption = effects.consumedOneTimePrekey, let index = oneTimePrekeys.firstIndex(where: { $0.id == consumption.id }) {
            oneTimePrekeys[index] = oneTimePrekeys[index].consumed(at: consumption.time)
        }
        if let pin = effects.identityToPin { pins[device] = pin }
    }
}
