@testable import E2EECrypto
import E2EETestSupport
import Testing

/// Two devices with an established session: Alice initiated, Bob received, Alice heard back.
struct EstablishedPair {
    var alice: SessionTestDevice
    var bob: SessionTestDevice

    init() throws {
        alice = try SessionTestDevice(seed: 1)
        bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        _ = try bob.receive(alice.send("setup", to: bob), from: alice)
        _ = try alice.receive(bob.send("setup reply", to: alice), from: bob)
    }
}

@Suite("Sessions: Double Ratchet")
struct DoubleRatchetTests {
    @Test("a conversation over several DH turns with out-of-order and late delivery")
    func conversation() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let a = try (0..<3).map { try alice.send("a\($0)", to: bob) }
        #expect(a.allSatisfy { $0.first == PrekeyMessage.type })
        #expect(try bob.receive(a[0], from: alice) == "a0")
        #expect(try bob.receive(a[2], from: alice) == "a2")
        let b = try (0..<3).map { try bob.send("b\($0)", to: alice) }
        #expect(try alice.receive(b[2], from: bob) == "b2")
        #expect(try alice.receive(b[0], from: bob) == "b0")
        let a2 = try (3..<6).map { try alice.send("a\($0)", to: bob) }
        #expect(a2.allSatisfy { $0.first == NormalMessage.type })
        #expect(try bob.receive(a2[1], from: alice) == "a4")   // new chain, old chain's a1 still pending
        #expect(try bob.receive(a[1], from: alice) == "a1")    // late prekey message: its stored key
        let b2 = try bob.send("b3", to: alice)
        #expect(try alice.receive(b2, from: bob) == "b3")
        #expect(try alice.receive(b[1], from: bob) == "b1")
        let a3 = try alice.send("a6", to: bob)
        #expect(try bob.receive(a3, from: alice) == "a6")
        #expect(try bob.receive(a2[0], from: alice) == "a3")
        #expect(try bob.receive(a2[2], from: alice) == "a5")
        #expect(bob.records[alice.deviceID]?.current.storedSkippedKeyCount == 0)
        #expect(alice.records[bob.deviceID]?.current.storedSkippedKeyCount == 0)
    }

    @Test("derivations follow §3: KDF_CK by HMAC 0x01/0x02, the AES key by HKDF(ZERO32, mk, e2ee-msg-v2, 32); the nonce is not derived")
    func derivations() throws {
        let ck = SecretBytes(copying: [UInt8](repeating: 0x42, count: 32))
        let (mk, next) = RatchetKDF.chain(ck)
        #expect(mk == HMACSHA256.authenticationCode(for: [UInt8(1)], key: ck))
        #expect(next == HMACSHA256.authenticationCode(for: [UInt8(2)], key: ck))
        let key = try RatchetKDF.messageAEADKey(mk)
        let expected = try HKDF.deriveKey(inputKeyMaterial: mk, salt: [UInt8](repeating: 0, count: 32), info: Array("e2ee-msg-v2".utf8), outputLength: 32)
        #expect(key == expected)
        let (root, chain) = try RatchetKDF.root(ck, mk)
        let rootExpected = try HKDF.deriveKey(inputKeyMaterial: mk, salt: ck, info: Array("e2ee-ratchet-v1".utf8), outputLength: 64)
        #expect(root == rootExpected.slice(0..<32) && chain == rootExpected.slice(32..<64))
    }

    @Test("Alice's first ratchet key is fresh (not EK) and her remote ratchet key is SPK_B; Bob's ratchet pair is the SPK pair")
    func initialRatchetKeys() throws {
        var pair = try EstablishedPair()
        try pair.alice.startSession(with: pair.bob)
        let state = try #require(pair.alice.records[pair.bob.deviceID]).current
        #expect(state.remoteRatchet == pair.bob.signedPrekeys[0].keyPair.publicKey)
        #expect(state.sendingRatchet.publicKey != state.baseKey)
        guard case .prekey(let message) = try PairwiseMessage(bytes: pair.alice.send("x", to: pair.bob)) else { Issue.record("no prekey"); return }
        #expect(message.message.header.ratchetKey == state.sendingRatchet.publicKey)
        #expect(message.message.header.ratchetKey != message.baseKey)
    }

    @Test("a responder state cannot send before it has received")
    func responderCannotSendFirst() throws {
        let bob = try SessionTestDevice(seed: 2)
        let alice = try SessionTestDevice(seed: 1)
        let state = SessionState(role: .responder, localIdentity: bob.blob, remoteIdentity: alice.blob,
                                 baseKey: X25519.PrivateKey().publicKey, signedPrekeyID: 1, oneTimePrekeyID: 0,
                                 awaitingReply: false, rootKey: .random(count: 32), sendingRatchet: bob.signedPrekeys[0].keyPair,
                                 remoteRatchet: nil, sendingChain: nil)
        #expect(!state.canSend)
        #expect(throws: ProtocolError.cannotSendYet) { try SessionRecord(current: state).encrypt([1, 2, 3]) }
    }

    @Test("Alice sends prekey messages, repeating EK_A, until she has decrypted something; the repeats decrypt in Bob's session")
    func repeatedPrekeyMessages() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let first = try alice.send("one", to: bob)
        let second = try alice.send("two", to: bob)
        guard case .prekey(let p1) = try PairwiseMessage(bytes: first), case .prekey(let p2) = try PairwiseMessage(bytes: second) else {
            Issue.record("expected prekey messages"); return
        }
        #expect(p1.baseKey == p2.baseKey)
        #expect(try bob.receive(first, from: alice) == "one")
        let pending = try bob.open(second, from: alice)
        #expect(pending.effects.acceptedBaseKey == nil && pending.effects.consumedOneTimePrekey == nil && pending.effects.identityToPin == nil)
        #expect(pending.effects.record.archived.isEmpty)
        bob.commit(pending.effects, from: alice.deviceID)
        #expect(try alice.receive(bob.send("back", to: alice), from: bob) == "back")
        #expect(try alice.send("three", to: bob).first == NormalMessage.type)
    }

    @Test("a repeated EK_A with different prekey ids or another blob is refused and changes nothing")
    func repeatedBaseKeyMismatch() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let first = try alice.send("one", to: bob)
        let second = try alice.send("two", to: bob)
        _ = try bob.receive(first, from: alice)
        let before = bob.snapshot(of: alice)
        var otherOPK = second
        otherOPK[105] ^= 0x03
        #expect(throws: ProtocolError.replay) { try bob.open(otherOPK, from: alice) }
        var otherSPK = second
        otherSPK[101] ^= 0x01
        #expect(throws: ProtocolError.replay) { try bob.open(otherSPK, from: alice) }
        let mallory = try SessionTestDevice(seed: 3)
        let otherBlob = [second[0]] + mallory.blob.bytes + second[66...]
        #expect(throws: ProtocolError.identityMismatch) { try bob.open(otherBlob, from: alice) }
        #expect(bob.snapshot(of: alice) == before)
    }

    @Test("whenSkipExceedsLimit_thenRejectsWithoutAdvancing: N above 1000 on the current chain")
    func skipLimitCurrentChain() throws {
        var pair = try EstablishedPair()
        let messages = try (0...1001).map { try pair.alice.send("m\($0)", to: pair.bob) }
        let before = pair.bob.snapshot(of: pair.alice)
        #expect(throws: ProtocolError.tooFarAhead(jump: 1001, limit: 1000)) { try pair.bob.open(messages[1001], from: pair.alice) }
        #expect(pair.bob.snapshot(of: pair.alice) == before)
        #expect(try pair.bob.receive(messages[1000], from: pair.alice) == "m1000")
        #expect(pair.bob.records[pair.alice.deviceID]?.current.storedSkippedKeyCount == 1000)
        #expect(try pair.bob.receive(messages[1001], from: pair.alice) == "m1001")
        #expect(try pair.bob.receive(messages[0], from: pair.alice) == "m0")
        #expect(throws: ProtocolError.tooOld) { try pair.bob.open(messages[0], from: pair.alice) }
    }

    @Test("whenOldChainSkipExceedsLimit_thenRejectsWithoutAdvancing: PN − Nr above 1000")
    func skipLimitOldChain() throws {
        var pair = try EstablishedPair()
        _ = try pair.bob.receive(pair.alice.send("m0", to: pair.bob), from: pair.alice)
        for index in 1...1002 { _ = try pair.alice.send("lost \(index)", to: pair.bob) }
        _ = try pair.alice.receive(pair.bob.send("turn", to: pair.alice), from: pair.bob)
        let next = try pair.alice.send("new chain", to: pair.bob)
        let before = pair.bob.snapshot(of: pair.alice)
        #expect(throws: ProtocolError.tooFarAhead(jump: 1002, limit: 1000)) { try pair.bob.open(next, from: pair.alice) }
        #expect(pair.bob.snapshot(of: pair.alice) == before)
    }

    @Test("at most 2000 skipped keys per state: the oldest inserted are dropped first, a used key is deleted")
    func storedSkippedKeyCap() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        var chains: [[[UInt8]]] = []
        for (turn, length) in [1001, 1001, 11].enumerated() {
            let chain = try (0..<length).map { try alice.send("c\(turn) m\($0)", to: bob) }
            chains.append(chain)
            _ = try bob.receive(chain[length - 1], from: alice)
            _ = try alice.receive(bob.send("turn \(turn)", to: alice), from: bob)
        }
        #expect(bob.records[alice.deviceID]?.current.storedSkippedKeyCount == 2000)
        for index in 0..<10 {
            #expect(throws: ProtocolError.self) { try bob.open(chains[0][index], from: alice) }
        }
        #expect(try bob.receive(chains[0][10], from: alice) == "c0 m10")
        #expect(try bob.receive(chains[1][0], from: alice) == "c1 m0")
        #expect(bob.records[alice.deviceID]?.current.storedSkippedKeyCount == 1998)
    }

    @Test("forged, replayed, truncated and mis-addressed messages are refused and leave the session byte-identical")
    func refusalsLeaveStateUnchanged() throws {
        var pair = try EstablishedPair()
        var carol = try SessionTestDevice(seed: 3)
        try pair.alice.startSession(with: carol)
        _ = try carol.receive(pair.alice.send("hi carol", to: carol), from: pair.alice)
        _ = try pair.alice.receive(carol.send("hi alice", to: pair.alice), from: carol)

        let delivered = try pair.alice.send("delivered", to: pair.bob)
        _ = try pair.bob.receive(delivered, from: pair.alice)
        let message = try pair.alice.send("target", to: pair.bob)
        let forCarol = try pair.alice.send("for carol", to: carol)
        let before = pair.bob.snapshot(of: pair.alice)

        var flippedCiphertext = message
        flippedCiphertext[flippedCiphertext.count - 20] ^= 1
        var flippedTag = message
        flippedTag[flippedTag.count - 1] ^= 0x80
        var flippedCounter = message
        flippedCounter[34] ^= 1  // inside PN (bytes 33..<37): same key, different header
        var flippedNonce = message
        flippedNonce[45] ^= 1  // inside the nonce (bytes 41..<53): authenticated as part of the header
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(flippedCiphertext, from: pair.alice) }
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(flippedTag, from: pair.alice) }
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(flippedCounter, from: pair.alice) }
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(flippedNonce, from: pair.alice) }
        #expect(throws: ProtocolError.tooOld) { try pair.bob.open(delivered, from: pair.alice) }
        #expect(throws: ProtocolError.truncated(.pairwiseMessage, expected: 69, actual: 56)) {
            try pair.bob.open(Array(message.prefix(56)), from: pair.alice)
        }
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(Array(message.dropLast()), from: pair.alice) }
        #expect(throws: ProtocolError.unsupportedVersion(.pairwiseMessage, value: 3)) { try pair.bob.open([3] + message.dropFirst(), from: pair.alice) }
        #expect(throws: ProtocolError.badTag) { try pair.bob.open(forCarol, from: pair.alice) }
        #expect(pair.bob.snapshot(of: pair.alice) == before)
        #expect(try pair.bob.receive(message, from: pair.alice) == "target")
    }

    @Test("simultaneous initiation converges through archived states")
    func simultaneousInitiation() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        try bob.startSession(with: alice)
        let fromAlice = try alice.send("alice first", to: bob)
        let fromBob = try bob.send("bob first", to: alice)
        #expect(try alice.receive(fromBob, from: bob) == "bob first")
        #expect(try bob.receive(fromAlice, from: alice) == "alice first")
        #expect(alice.records[bob.deviceID]?.archived.count == 1)
        #expect(bob.records[alice.deviceID]?.archived.count == 1)

        #expect(try bob.receive(alice.send("alice second", to: bob), from: alice) == "alice second")
        #expect(try alice.receive(bob.send("bob second", to: alice), from: bob) == "bob second")
        let aliceCurrent = try #require(alice.records[bob.deviceID]?.current)
        let bobCurrent = try #require(bob.records[alice.deviceID]?.current)
        #expect(aliceCurrent.baseKey == bobCurrent.baseKey)
        #expect(try bob.receive(alice.send("alice third", to: bob), from: alice) == "alice third")
    }

    @Test("at most 5 archived states, most recently used first; a decrypting archived state becomes current")
    func archiveLimit() throws {
        var alice = try SessionTestDevice(seed: 1, oneTimePrekeyCount: 8)
        var bob = try SessionTestDevice(seed: 2)
        var bases: [X25519.PublicKey] = []
        var pendingOld: [UInt8] = []
        for index in 0..<7 {
            try bob.startSession(with: alice, oneTimePrekeyIndex: index)
            let message = try bob.send("session \(index)", to: alice)
            if index == 0 { pendingOld = try bob.send("late in session 0", to: alice) }
            _ = try alice.receive(message, from: bob)
            bases.append(try #require(alice.records[bob.deviceID]).current.baseKey)
        }
        let record = try #require(alice.records[bob.deviceID])
        #expect(record.archived.count == 5)
        #expect(record.archived.map(\.baseKey) == Array(bases[1..<6].reversed()))
        // Session 0 was dropped from the archive: its late message cannot be decrypted now.
        #expect(throws: ProtocolError.replay) { try alice.open(pendingOld, from: bob) }
    }
}
