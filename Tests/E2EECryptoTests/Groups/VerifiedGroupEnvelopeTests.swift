@testable import E2EECrypto
import Testing

@Suite("Group signatures verified ahead of the ratchet step")
struct VerifiedGroupEnvelopeTests {
    @Test("a proof for the state's channel and key decrypts exactly as the envelope itself does")
    func proofDecryptsLikeEnvelope() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        for envelope in try group.send(5) {
            let proof = try VerifiedGroupEnvelope(envelope, channel: group.channel, signingKey: receiver.signingPublicKey)
            let (viaProof, stateViaProof) = try receiver.decrypt(proof, channel: group.channel, now: group.now)
            let (direct, stateDirect) = try receiver.decrypt(envelope, channel: group.channel, now: group.now)
            #expect(viaProof.text == direct.text)
            #expect(stateViaProof.nextIteration == stateDirect.nextIteration)
            #expect(stateViaProof.serialized().unprotectedCopy() == stateDirect.serialized().unprotectedCopy())
        }
    }

    @Test("a tampered envelope gets no proof: .badSignature")
    func tamperedEnvelopeHasNoProof() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try #require(try group.send(1).first)
        var ciphertext = envelope.ciphertext
        ciphertext[0] ^= 0x01
        let tampered = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: envelope.iteration,
                                         nonce: envelope.nonce, ciphertext: ciphertext, signature: envelope.signature)
        #expect(throws: ProtocolError.badSignature) {
            try VerifiedGroupEnvelope(tampered, channel: group.channel, signingKey: receiver.signingPublicKey)
        }
    }

    @Test("a proof made with another signing key is not trusted: the state verifies again and refuses (.badSignature)")
    func proofWithAnotherKeyIsReverified() throws {
        let group = GroupFixture()
        let receiver = try group.installReceiver()
        // A forger signs bytes under the real key id with a key of their own, and verifies them with it.
        let forger = Ed25519.PrivateKey(using: SystemRandom())
        let nonce = SystemRandom().bytes(count: GroupEnvelope.nonceLength)
        let header = GroupEnvelope.header(senderDevice: group.senderDevice, keyID: receiver.keyID, iteration: 0, nonce: nonce)
        let ciphertext = SystemRandom().bytes(count: 40)
        let signature = forger.signature(for: GroupEnvelope.signedBytes(channel: group.channel, header: header, ciphertext: ciphertext))
        let forged = try GroupEnvelope(senderDevice: group.senderDevice, keyID: receiver.keyID, iteration: 0, nonce: nonce,
                                       ciphertext: ciphertext, signature: signature)
        let proof = try VerifiedGroupEnvelope(forged, channel: group.channel, signingKey: forger.publicKey)
        #expect(throws: ProtocolError.badSignature) { try receiver.decrypt(proof, channel: group.channel, now: group.now) }
    }

    @Test("a signature checked for another channel fails, and a proof never lets an envelope open in another channel")
    func proofForAnotherChannelIsReverified() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try #require(try group.send(1).first)
        #expect(throws: ProtocolError.badSignature) {
            try VerifiedGroupEnvelope(envelope, channel: randomUUID(), signingKey: receiver.signingPublicKey)
        }
        let proof = try VerifiedGroupEnvelope(envelope, channel: group.channel, signingKey: receiver.signingPublicKey)
        #expect(throws: ProtocolError.channelMismatch) { try receiver.decrypt(proof, channel: randomUUID(), now: group.now) }
    }
}

@Suite("Ed25519 point validation cache")
struct ValidPointCacheTests {
    @Test("a valid key validates again from the cache; an invalid key is still refused after valid ones were cached")
    func cacheKeepsOnlyValidKeys() throws {
        let valid = Ed25519.PrivateKey(using: SystemRandom()).publicKey
        #expect(try valid.validated() == valid)
        #expect(ValidPointCache.shared.contains(valid.rawRepresentation))
        #expect(try valid.validated() == valid)
        let invalid = try Ed25519.PublicKey(rawRepresentation: [1] + [UInt8](repeating: 0, count: 31))
        #expect(throws: CryptoError.invalidPublicKey) { try invalid.validated() }
        #expect(!ValidPointCache.shared.contains(invalid.rawRepresentation))
    }

    @Test("the cache is bounded: when full it starts over")
    func cacheIsBounded() {
        let cache = ValidPointCache(capacity: 3)
        for byte in UInt8(0)..<4 { cache.insert([UInt8](repeating: byte, count: 32)) }
        #expect(cache.contains([UInt8](repeating: 3, count: 32)))
        #expect(!cache.contains([UInt8](repeating: 0, count: 32)))
    }
}
