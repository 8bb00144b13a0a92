@testable import E2EECrypto
import E2EETestSupport
import Testing

/// A device with an in-memory "store", so tests can run the protocol end to end and commit
/// effects exactly as the messaging layer will.
struct SessionTestDevice {
    let deviceID: WireUUID
    let identity: IdentityKeyPair
    let random: DeterministicRandom
    var signedPrekeys: [SignedPrekey]
    var oneTimePrekeys: [OneTimePrekey]
    var accepted: Set<X25519.PublicKey> = []
    var pins: [WireUUID: IdentityBlob] = [:]
    var records: [WireUUID: SessionRecord] = [:]
    var now: Int64 = 1_700_000_000

    init(seed: UInt8, oneTimePrekeyCount: Int = 3) throws {
        random = DeterministicRandom(seed: [UInt8](repeating: seed, count: 32))
        deviceID = try WireUUID(bytes: random.bytes(count: 16))
        identity = IdentityKeyPair(using: random)
        signedPrekeys = [try SignedPrekey.generate(identity: identity, retainedIDs: [], createdAt: now, using: random)]
        oneTimePrekeys = try OneTimePrekey.generate(count: oneTimePrekeyCount, nextID: 1, using: random)
    }

    var blob: IdentityBlob { identity.publicIdentity }

    /// The bundle as the server would list it, parsed the way a client parses it.
    func bundle(oneTimePrekeyIndex: Int? = 0) throws -> PrekeyBundle {
        let spk = try #require(signedPrekeys.last)
        return try PrekeyBundle(
            deviceID: deviceID.text, identityKey: blob.base64, signedPreKey: spk.published.base64,
            signedPreKeySignature: spk.signatureBase64,
            oneTimePreKey: oneTimePrekeyIndex.map { oneTimePrekeys[$0].published.base64 }
        )
    }

    /// Starts a session with `peer` from its bundle and installs it (committing the pin).
    mutating func startSession(with peer: SessionTestDevice, oneTimePrekeyIndex: Int? = 0) throws {
        let started = try X3DH.initiate(localIdentity: identity, bundle: peer.bundle(oneTimePrekeyIndex: oneTimePrekeyIndex),
                                        pinnedIdentity: pins[peer.deviceID], using: random)
        records[peer.deviceID] = SessionRecord.installing(started.state, into: records[peer.deviceID])
        if let pin = started.identityToPin { pins[peer.deviceID] = pin }
    }

    /// Encrypts `text` for `peer` and persists the advanced record.
    mutating func send(_ text: String, to peer: SessionTestDevice) throws -> [UInt8] {
        let record = try #require(records[peer.deviceID])
        let result = try record.encrypt(Array(text.utf8))
        records[peer.deviceID] = result.record
        return result.message
    }

    func context(listed: IdentityBlob?, from peer: WireUUID) -> ResponderContext {
        ResponderContext(localIdentity: identity, pinnedIdentity: pins[peer], listedIdentity: listed,
                         signedPrekeys: signedPrekeys, oneTimePrekeys: oneTimePrekeys, acceptedBaseKeys: accepted, now: now)
    }

    /// Decrypts without committing anything.
    func open(_ bytes: [UInt8], from peer: SessionTestDevice, listed: IdentityBlob? = nil) throws -> PendingDecryption {
        switch try PairwiseMessage(bytes: bytes) {
        case .normal(let message):
            guard let record = records[peer.deviceID] else { throw ProtocolError.unknownSession }
            return try record.decrypt(message, using: random)
        case .prekey(let message):
            let outcome = try X3DH.respond(to: message, record: records[peer.deviceID],
                                           context: context(listed: listed ?? peer.blob, from: peer.deviceID), using: random)
            guard case .decrypted(let pending) = outcome else { throw TestFailure.needsListedIdentity }
            return pending
        }
    }

    /// Applies the effects of a verified decryption, as the store would in one transaction.
    mutating func commit(_ effects: SessionEffects, from peer: WireUUID) {
        records[peer] = effects.record
        if let accepted = effects.acceptedBaseKey { self.accepted.insert(accepted.baseKey) }
        if let consumption = effects.consumedOneTimePrekey,
           let index = oneTimePrekeys.firstIndex(where: { $0.id == consumption.id }) {
            oneTimePrekeys[index] = oneTimePrekeys[index].consumed(at: consumption.time)
        }
        if let pin = effects.identityToPin { pins[peer] = pin }
    }

    /// Decrypts and commits; returns the text.
    mutating func receive(_ bytes: [UInt8], from peer: SessionTestDevice, listed: IdentityBlob? = nil) throws -> String {
        let pending = try open(bytes, from: peer, listed: listed)
        commit(pending.effects, from: peer.deviceID)
        return String(decoding: pending.plaintext.unprotectedCopy(), as: UTF8.self)
    }

    /// The stored bytes of the record with `peer` (nil when none), for byte-identity checks.
    func snapshot(of peer: SessionTestDevice) -> [UInt8]? {
        records[peer.deviceID]?.serialized().unprotectedCopy()
    }
}

enum TestFailure: Error {
    case needsListedIdentity
}
