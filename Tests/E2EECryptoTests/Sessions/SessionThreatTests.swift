@testable import E2EECrypto
import E2EETestSupport
import Testing

@Suite("Sessions: docs/spec/threats.md T3, T5, T15 at the crypto level")
struct SessionThreatTests {
    // Prekey message layout: type(1) || blob(65) || EK_A(32) || spk_id(4) || opk_id(4) || normal.
    static let baseKeyRange = 66..<98
    static let signedPrekeyIDRange = 98..<102
    static let oneTimePrekeyIDRange = 102..<106

    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

    @Test("T3: the X3DH header travels in the prekey message and is bound: altering spk_id, opk_id, EK_A or the blob breaks it")
    func t3HeaderBound() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        let mallory = try SessionTestDevice(seed: 3)
        bob.signedPrekeys.append(try SignedPrekey.generate(identity: bob.identity, retainedIDs: [bob.signedPrekeys[0].id], createdAt: bob.now))
        try alice.startSession(with: bob)
        let message = try alice.send("bound", to: bob)

        // The bundle carries the newest SPK; the older one is still retained.
        guard case .prekey(let parsed) = try PairwiseMessage(bytes: message) else { Issue.record("no prekey"); return }
        #expect(parsed.signedPrekeyID == bob.signedPrekeys[1].id)
        var otherSPK = message
        otherSPK.replaceSubrange(Self.signedPrekeyIDRange, with: Self.be32(bob.signedPrekeys[0].id))
        let retained = Set(bob.signedPrekeys.map(\.id))
        var unknownID: UInt32 = 1
        while retained.contains(unknownID) { unknownID += 1 }
        var unknownSPK = message
        unknownSPK.replaceSubrange(Self.signedPrekeyIDRange, with: Self.be32(unknownID))
        var otherOPK = message
        otherOPK.replaceSubrange(Self.oneTimePrekeyIDRange, with: Self.be32(bob.oneTimePrekeys[1].id))
        var noOPK = message
        noOPK.replaceSubrange(Self.oneTimePrekeyIDRange, with: Self.be32(0))
        var otherEK = message
        otherEK.replaceSubrange(Self.baseKeyRange, with: X25519.PrivateKey().publicKey.rawRepresentation)
        let otherBlob = [message[0]] + mallory.blob.bytes + message[66...]

        for forged in [otherSPK, otherOPK, noOPK, otherEK] {
            #expect(throws: ProtocolError.badTag) { try bob.open(forged, from: alice) }
        }
        #expect(throws: ProtocolError.unknownPrekey) { try bob.open(unknownSPK, from: alice) }
        // Even when the server lists Mallory's blob for the device, the swapped blob fails (DH1 and AD).
        #expect(throws: ProtocolError.badTag) { try bob.open(otherBlob, from: alice, listed: mallory.blob) }
        #expect(bob.records.isEmpty && bob.accepted.isEmpty && bob.pins.isEmpty)
        #expect(try bob.receive(message, from: alice) == "bound")
    }

    @Test("T5: a stolen receiving chain key cannot decrypt earlier messages, and a DH turn heals it")
    func t5ChainKeyTheft() throws {
        var pair = try EstablishedPair()
        let chain = try (0..<5).map { try pair.alice.send("m\($0)", to: pair.bob) }
        for index in 0..<3 { _ = try pair.bob.receive(chain[index], from: pair.alice) }
        let bobState = try #require(pair.bob.records[pair.alice.deviceID]).current
        let stolen = try #require(bobState.receivingChain)
        let ad = bobState.associatedData

        func stolenKeys(_ count: Int) -> [SecretBytes] {
            var keys: [SecretBytes] = []
            var ck = stolen
            for _ in 0..<count {
                let step = RatchetKDF.chain(ck)
                keys.append(step.messageKey)
                ck = step.nextChainKey
            }
            return keys
        }
        func opens(_ bytes: [UInt8], with keys: [SecretBytes]) throws -> Bool {
            guard case .normal(let message) = try PairwiseMessage(bytes: bytes) else { return false }
            return keys.contains { (try? RatchetKDF.open(message.ciphertext, messageKey: $0, nonce: message.header.nonce, associatedData: ad + message.header.bytes)) != nil }
        }

        let keys = stolenKeys(50)
        for index in 0..<3 { #expect(try !opens(chain[index], with: keys), "earlier message \(index) must stay secret") }
        // The bound of the guarantee: later messages of the same chain are exposed until a DH turn.
        #expect(try opens(chain[3], with: keys))

        let stolenRecord = try #require(pair.bob.records[pair.alice.deviceID])
        _ = try pair.alice.receive(pair.bob.send("turn 1", to: pair.alice), from: pair.bob)
        let afterTurn = try pair.alice.send("after one turn", to: pair.bob)
        #expect(try pair.bob.receive(afterTurn, from: pair.alice) == "after one turn")
        #expect(try !opens(afterTurn, with: keys))
        _ = try pair.alice.receive(pair.bob.send("turn 2", to: pair.alice), from: pair.bob)
        let healed = try pair.alice.send("healed", to: pair.bob)
        // Even the whole stolen state (root key, ratchet private key) is locked out after two turns.
        guard case .normal(let message) = try PairwiseMessage(bytes: healed) else { Issue.record("expected normal"); return }
        #expect(throws: ProtocolError.self) { try stolenRecord.decrypt(message) }
        #expect(try pair.bob.receive(healed, from: pair.alice) == "healed")
    }

    @Test("T15: a replayed prekey message (accepted EK_A) cannot re-create a session")
    func t15ReplayedBaseKey() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let first = try alice.send("once", to: bob)
        _ = try bob.receive(first, from: alice)
        // The same bytes again in the live session: the key is used up.
        #expect(throws: ProtocolError.tooOld) { try bob.open(first, from: alice) }
        // Replayed after the session is gone (or claimed by another device): refused as a replay.
        let before = bob.accepted
        bob.records[alice.deviceID] = nil
        #expect(throws: ProtocolError.replay) { try bob.open(first, from: alice) }
        #expect(bob.records.isEmpty && bob.accepted == before)
    }

    @Test("T15: a one-time prekey served twice works for a second initiator within the grace window, not after")
    func t15ReusedOneTimePrekey() throws {
        var bob = try SessionTestDevice(seed: 2)
        let bundle = try bob.bundle(oneTimePrekeyIndex: 0)
        var alice = try SessionTestDevice(seed: 1)
        var carol = try SessionTestDevice(seed: 3)
        var dave = try SessionTestDevice(seed: 4)
        for device in [alice, carol, dave] {
            #expect(try X3DH.initiate(localIdentity: device.identity, bundle: bundle, pinnedIdentity: nil).state.oneTimePrekeyID == 1)
        }
        try alice.startSession(with: bob)
        try carol.startSession(with: bob)
        try dave.startSession(with: bob)

        let pendingAlice = try bob.open(alice.send("alice", to: bob), from: alice)
        #expect(pendingAlice.effects.consumedOneTimePrekey == OneTimePrekeyConsumption(id: 1, time: bob.now))
        bob.commit(pendingAlice.effects, from: alice.deviceID)

        bob.now += ProtocolLimits.oneTimePrekeyGraceSeconds - 1
        let pendingCarol = try bob.open(carol.send("carol", to: bob), from: carol)
        #expect(pendingCarol.effects.consumedOneTimePrekey == nil)  // already consumed: the first time stands
        bob.commit(pendingCarol.effects, from: carol.deviceID)
        #expect(String(decoding: pendingCarol.plaintext.unprotectedCopy(), as: UTF8.self) == "carol")

        bob.now += 1
        let fromDave = try dave.send("dave", to: bob)
        #expect(throws: ProtocolError.unknownPrekey) { try bob.open(fromDave, from: dave) }
        #expect(bob.records[dave.deviceID] == nil)
    }
}
