@testable import E2EECrypto
import E2EETestSupport
import Testing

@Suite("Sessions: X3DH")
struct X3DHTests {
    @Test("with and without a one-time prekey, both sides agree and can talk both ways", arguments: [0, nil] as [Int?])
    func agreement(opkIndex: Int?) throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob, oneTimePrekeyIndex: opkIndex)
        let first = try alice.send("hello bob", to: bob)
        guard case .prekey(let prekey) = try PairwiseMessage(bytes: first) else { Issue.record("expected a prekey message"); return }
        #expect(prekey.oneTimePrekeyID == (opkIndex == nil ? 0 : bob.oneTimePrekeys[0].id))
        #expect(prekey.signedPrekeyID == bob.signedPrekeys[0].id)
        #expect(prekey.identity == alice.blob)

        let pending = try bob.open(first, from: alice)
        #expect(pending.effects.acceptedBaseKey?.baseKey == prekey.baseKey)
        #expect(pending.effects.identityToPin == alice.blob)
        #expect(pending.effects.consumedOneTimePrekey == (opkIndex == nil ? nil : OneTimePrekeyConsumption(id: 1, time: bob.now)))
        bob.commit(pending.effects, from: alice.deviceID)
        #expect(String(decoding: pending.plaintext.unprotectedCopy(), as: UTF8.self) == "hello bob")

        let reply = try bob.send("hi alice", to: alice)
        #expect(reply.first == NormalMessage.type)
        #expect(try alice.receive(reply, from: bob) == "hi alice")
        #expect(try alice.send("after the reply", to: bob).first == NormalMessage.type)
    }

    @Test("the initiator derives the same SK as an independent computation of §2 step 4")
    func sharedKeyDefinition() throws {
        let random = DeterministicRandom(seed: [3])
        let a = X25519.PrivateKey(using: random), b = X25519.PrivateKey(using: random)
        let dh = try a.sharedSecret(with: b.publicKey)
        let ikm = [UInt8](repeating: 0xFF, count: 32) + dh.unprotectedCopy() + dh.unprotectedCopy() + dh.unprotectedCopy()
        let expected = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32),
                                          info: Array("e2ee-x3dh-v1".utf8), outputLength: 32)
        #expect(try X3DH.sharedKey(dh, dh, dh, nil) == expected)
        #expect(try X3DH.sharedKey(dh, dh, dh, dh) != expected)
    }

    @Test("the initiator refuses a bundle whose identity differs from the pinned one")
    func initiatorPinned() throws {
        let alice = try SessionTestDevice(seed: 1)
        let bob = try SessionTestDevice(seed: 2)
        let mallory = try SessionTestDevice(seed: 3)
        #expect(throws: ProtocolError.identityMismatch) {
            try X3DH.initiate(localIdentity: alice.identity, bundle: bob.bundle(), pinnedIdentity: mallory.blob)
        }
        let pinned = try X3DH.initiate(localIdentity: alice.identity, bundle: bob.bundle(), pinnedIdentity: bob.blob)
        #expect(pinned.identityToPin == nil)
    }

    @Test("responder without a pinned or listed identity: needs the listed identity, nothing changes")
    func needsListedIdentity() throws {
        var alice = try SessionTestDevice(seed: 1)
        let bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        guard case .prekey(let message) = try PairwiseMessage(bytes: alice.send("queued", to: bob)) else { Issue.record("no prekey"); return }
        let outcome = try X3DH.respond(to: message, record: nil, context: bob.context(listed: nil, from: alice.deviceID), using: bob.random)
        guard case .needsListedIdentity = outcome else { Issue.record("expected needsListedIdentity"); return }
    }

    @Test("responder refuses an identity that differs from the pinned or the listed one")
    func responderIdentityMismatch() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        let mallory = try SessionTestDevice(seed: 3)
        try alice.startSession(with: bob)
        let first = try alice.send("hi", to: bob)
        #expect(throws: ProtocolError.identityMismatch) { try bob.open(first, from: alice, listed: mallory.blob) }
        bob.pins[alice.deviceID] = mallory.blob
        #expect(throws: ProtocolError.identityMismatch) { try bob.open(first, from: alice, listed: alice.blob) }
        #expect(bob.records.isEmpty && bob.accepted.isEmpty)
    }

    @Test("responder refuses unknown signed or one-time prekeys and expired grace")
    func unknownPrekeys() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let first = try alice.send("hi", to: bob)
        var withoutSPK = bob
        withoutSPK.signedPrekeys = [try SignedPrekey.generate(identity: bob.identity, retainedIDs: [bob.signedPrekeys[0].id], createdAt: 0)]
        #expect(throws: ProtocolError.unknownPrekey) { try withoutSPK.open(first, from: alice) }
        var withoutOPK = bob
        withoutOPK.oneTimePrekeys.removeFirst()
        #expect(throws: ProtocolError.unknownPrekey) { try withoutOPK.open(first, from: alice) }
        bob.oneTimePrekeys[0] = bob.oneTimePrekeys[0].consumed(at: bob.now - ProtocolLimits.oneTimePrekeyGraceSeconds)
        #expect(throws: ProtocolError.unknownPrekey) { try bob.open(first, from: alice) }
    }

    @Test("nothing is applied until the caller commits: an uncommitted decryption leaves the store as it was")
    func effectsAreValues() throws {
        var alice = try SessionTestDevice(seed: 1)
        let bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let first = try alice.send("hi", to: bob)
        let pending = try bob.open(first, from: alice)
        #expect(pending.effects.record.current.role == .responder)
        // The caller's envelope check failed: it drops `pending`. Bob's store is untouched and
        // the same message still decrypts later.
        #expect(bob.records.isEmpty && bob.accepted.isEmpty && bob.pins.isEmpty)
        #expect(bob.oneTimePrekeys.allSatisfy { $0.consumedAt == nil })
        #expect(try bob.open(first, from: alice).plaintext == pending.plaintext)
    }

    @Test("prekey and normal messages decode strictly: minimum sizes, spk_id 0, bad keys, type bytes")
    func strictMessageDecoding() throws {
        var alice = try SessionTestDevice(seed: 1)
        let bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let prekey = try alice.send("x", to: bob)
        #expect(prekey.count == PrekeyMessage.minimumLength + 1)
        #expect(PrekeyMessage.minimumLength == 175)
        #expect(throws: ProtocolError.truncated(.prekeyMessage, expected: 175, actual: 174)) { try PairwiseMessage(bytes: Array(prekey.prefix(174))) }
        var zeroSPK = prekey
        zeroSPK.replaceSubrange(98..<102, with: [0, 0, 0, 0])
        #expect(throws: ProtocolError.malformed(.prekeyMessage, reason: "spk_id 0")) { try PairwiseMessage(bytes: zeroSPK) }
        var lowOrderEK = prekey
        lowOrderEK.replaceSubrange(66..<98, with: [UInt8](repeating: 0, count: 32))
        #expect(throws: ProtocolError.invalidKey(.prekeyMessage)) { try PairwiseMessage(bytes: lowOrderEK) }
        var lowOrderRatchet = prekey
        lowOrderRatchet.replaceSubrange(107..<139, with: [1] + [UInt8](repeating: 0, count: 31))
        #expect(throws: ProtocolError.invalidKey(.header)) { try PairwiseMessage(bytes: lowOrderRatchet) }
        var innerType = prekey
        innerType[106] = 0x02
        #expect(throws: ProtocolError.unsupportedVersion(.normalMessage, value: 2)) { try PairwiseMessage(bytes: innerType) }
        var blobVersion = prekey
        blobVersion[1] = 0x05
        #expect(throws: ProtocolError.unsupportedVersion(.identityBlob, value: 5)) { try PairwiseMessage(bytes: blobVersion) }
        guard case .prekey(let parsed) = try PairwiseMessage(bytes: prekey) else { Issue.record("no prekey"); return }
        #expect(parsed.bytes == prekey)
        #expect(try NormalMessage(bytes: parsed.message.bytes) == parsed.message)
        #expect(throws: ProtocolError.truncated(.normalMessage, expected: 69, actual: 68)) { try NormalMessage(bytes: Array(parsed.message.bytes.prefix(68))) }
    }
}
