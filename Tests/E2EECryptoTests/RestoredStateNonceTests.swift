@testable import E2EECrypto
import Testing

/// docs/spec/protocol.md §3.4, §5.3, §6.6 (threats T18): a sending state used twice — a store
/// restored from an older copy — must never encrypt two plaintexts under one key and nonce.
/// Keys still come from the chains; the nonce is random per message and travels on the wire.
@Suite("A restored sending state never repeats a key and nonce")
struct RestoredStateNonceTests {
    /// The XOR of two equal-length byte strings.
    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }

    @Test("group: the same state encrypts twice at one (key_id, iteration) under two different nonces; the keystreams differ")
    func groupPositionUsedTwice() throws {
        let group = GroupFixture()
        let secret = Array("The merger closes on Friday, tell nobody".utf8)
        let known = Array("Lunch at noon in the usual place, folks!".utf8)
        let first = try group.sender.encrypt(secret, senderDevice: group.senderDevice).envelope
        let second = try group.sender.encrypt(known, senderDevice: group.senderDevice).envelope  // the restored copy
        #expect(first.keyID == second.keyID && first.iteration == second.iteration)
        #expect(first.nonce != second.nonce)
        // With one key and nonce, ct1 ⊕ ct2 ⊕ known would be the secret; with two nonces it is not.
        let recovered = Self.xor(Self.xor(Array(first.ciphertext.prefix(secret.count)), Array(second.ciphertext.prefix(known.count))), known)
        #expect(recovered != secret)
    }

    @Test("group: a signed message at a position already decrypted is refused as positionReused and the state is kept; a receiver that never saw the first reads it")
    func groupReusedPositionIsTyped() throws {
        let group = GroupFixture()
        let receiver = try group.installReceiver()
        let bystander = try group.installReceiver()
        let first = try group.sender.encrypt(Array("first".utf8), senderDevice: group.senderDevice).envelope
        let rival = try group.sender.encrypt(Array("from the restored copy".utf8), senderDevice: group.senderDevice).envelope
        let afterFirst = try receiver.decrypt(first, channel: group.channel, now: group.now).state
        #expect(throws: ProtocolError.positionReused) { try afterFirst.decrypt(rival, channel: group.channel, now: group.now) }
        #expect(throws: ProtocolError.badSignature) {
            // Unsigned tampering stays a bad signature, never a reuse report.
            let forged = try GroupEnvelope(senderDevice: rival.senderDevice, keyID: rival.keyID, iteration: rival.iteration,
                                           nonce: rival.nonce, ciphertext: rival.ciphertext, signature: first.signature)
            _ = try afterFirst.decrypt(forged, channel: group.channel, now: group.now)
        }
        let opened = try bystander.decrypt(rival, channel: group.channel, now: group.now)
        #expect(opened.plaintext.text == "from the restored copy")
    }

    @Test("group: the nonce is covered by the signature and the AEAD")
    func groupNonceIsAuthenticated() throws {
        let group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try group.sender.encrypt(Array("hello".utf8), senderDevice: group.senderDevice).envelope
        var nonce = envelope.nonce
        nonce[0] ^= 0x01
        let altered = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: envelope.iteration,
                                        nonce: nonce, ciphertext: envelope.ciphertext, signature: envelope.signature)
        #expect(throws: ProtocolError.badSignature) { try receiver.decrypt(altered, channel: group.channel, now: group.now) }
        #expect(try GroupEnvelope.decode(envelope.encoded()) == envelope)
    }

    @Test("group: an envelope is refused unless its nonce is 12 bytes")
    func groupNonceLength() throws {
        let group = GroupFixture()
        let envelope = try group.sender.encrypt(Array("hello".utf8), senderDevice: group.senderDevice).envelope
        for length in [0, 11, 13] {
            #expect(throws: ProtocolError.self) {
                try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: envelope.iteration,
                                  nonce: [UInt8](repeating: 1, count: length), ciphertext: envelope.ciphertext, signature: envelope.signature)
            }
        }
    }

    @Test("pairwise: the same session state encrypts twice at one (ratchet key, N) under two nonces; the second is refused by the receiver that used the key")
    func pairwiseCounterUsedTwice() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let restored = alice
        let first = try alice.send("The merger closes on Friday, tell nobody", to: bob)
        var copy = restored
        let second = try copy.send("Lunch at noon in the usual place, folks!", to: bob)
        let firstHeader = try Self.header(of: first), secondHeader = try Self.header(of: second)
        #expect(firstHeader.ratchetKey == secondHeader.ratchetKey && firstHeader.counter == secondHeader.counter)
        #expect(firstHeader.nonce != secondHeader.nonce)

        let opened = try bob.open(first, from: alice)
        #expect(opened.plaintext.text == "The merger closes on Friday, tell nobody")
        bob.commit(opened.effects, from: alice.deviceID)
        // The used message key is gone: a second message at that position is a duplicate (§9.7),
        // never decrypted, and the session is unchanged.
        #expect(throws: ProtocolError.self) { try bob.open(second, from: copy) }
        let third = try alice.send("still readable", to: bob)
        #expect(try bob.open(third, from: alice).plaintext.text == "still readable")
    }

    @Test("pairwise: the header's nonce is authenticated (one bit flipped: bad tag)")
    func pairwiseNonceIsAuthenticated() throws {
        var alice = try SessionTestDevice(seed: 3)
        let bob = try SessionTestDevice(seed: 4)
        try alice.startSession(with: bob)
        var message = try alice.send("hello", to: bob)
        // The nonce is the last 12 header bytes, just before the ciphertext.
        let nonceEnd = message.count - (Array("hello".utf8).count + 16)
        message[nonceEnd - 1] ^= 0x01
        #expect(throws: ProtocolError.badTag) { try bob.open(message, from: alice) }
    }

    /// The ratchet header of a pairwise message (normal or prekey).
    static func header(of bytes: [UInt8]) throws -> MessageHeader {
        switch try PairwiseMessage(bytes: bytes) {
        case .normal(let message): message.header
        case .prekey(let message): message.message.header
        }
    }
}
