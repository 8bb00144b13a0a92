@testable import E2EECrypto
import Testing

@Suite("Sender keys: forged, altered and replayed messages (T7, T9, T10)")
struct SenderKeyAttackTests {
    @Test("a flipped bit anywhere in the envelope is refused and changes nothing")
    func tamperAnywhere() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try group.send(1)[0]
        let bytes = envelope.encoded()
        let before = receiver.serialized()
        for index in bytes.indices where index >= 2 {
            var altered = bytes
            altered[index] ^= 0x01
            let decoded = try GroupEnvelope.decode(altered)
            #expect(throws: ProtocolError.self) { try receiver.decrypt(decoded, channel: group.channel, now: group.now) }
        }
        #expect(receiver.serialized() == before)
        #expect(try receiver.decrypt(envelope, channel: group.channel, now: group.now).plaintext.text == "message 0")
    }

    @Test("altered header or ciphertext fails the signature, which is checked first")
    func alteredFieldsFailSignature() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try group.send(2)[1]
        var ciphertext = envelope.ciphertext
        ciphertext[0] ^= 0x80
        let forgedCiphertext = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: envelope.iteration, nonce: envelope.nonce,
                                                 ciphertext: ciphertext, signature: envelope.signature)
        let forgedIteration = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: 0, nonce: envelope.nonce, ciphertext: envelope.ciphertext, signature: envelope.signature)
        var signature = envelope.signature
        signature[63] ^= 0x10
        let forgedSignature = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID, iteration: envelope.iteration, nonce: envelope.nonce, ciphertext: envelope.ciphertext, signature: signature)
        let before = receiver.serialized()
        for forged in [forgedCiphertext, forgedIteration, forgedSignature] {
            #expect(throws: ProtocolError.badSignature) { try receiver.decrypt(forged, channel: group.channel, now: group.now) }
        }
        #expect(receiver.serialized() == before)
    }

    @Test("T7: a member holding the victim's chain key but not its signing key cannot forge")
    func memberForgesAsAnotherMember() throws {
        var victim = GroupFixture()
        let bystander = try victim.installReceiver()
        let mallory = try victim.installReceiver()
        // Mallory knows the victim's chain key (from the SKD) and builds a sending state with it
        // and her own signing key, claiming the victim's device and key id.
        let forgerState = SenderKeySendingState(
            channel: victim.channel, keyID: victim.sender.keyID, iteration: mallory.nextIteration,
            chainKey: mallory.chainKey, signingKey: Ed25519.PrivateKey()
        )
        let (forged, _) = try forgerState.encrypt(Array("pay mallory".utf8), senderDevice: victim.senderDevice)
        let before = bystander.serialized()
        #expect(throws: ProtocolError.badSignature) { try bystander.decrypt(forged, channel: victim.channel, now: victim.now) }
        #expect(bystander.serialized() == before)
        // The genuine message at that iteration still decrypts.
        let genuine = try victim.send(1)[0]
        #expect(try bystander.decrypt(genuine, channel: victim.channel, now: victim.now).plaintext.text == "message 0")
    }

    @Test("a correctly signed message whose ciphertext fails AES-GCM is .badTag and changes nothing")
    func signedButBadTag() throws {
        let group = GroupFixture()
        let receiver = try group.installReceiver()
        // The sender signs a ciphertext made under a wrong chain key (a malicious sender).
        let wrongChain = SenderKeySendingState(
            channel: group.channel, keyID: group.sender.keyID, iteration: 0,
            chainKey: SecretBytes.random(count: 32), signingKey: group.sender.signingKey
        )
        let (envelope, _) = try wrongChain.encrypt(Array("x".utf8), senderDevice: group.senderDevice)
        let before = receiver.serialized()
        #expect(throws: ProtocolError.badTag) { try receiver.decrypt(envelope, channel: group.channel, now: group.now) }
        #expect(receiver.serialized() == before)
    }

    @Test("T9: one injected huge iteration desynchronises nobody")
    func hugeIterationInjection() throws {
        var group = GroupFixture()
        var receivers = try (0..<3).map { _ in try group.installReceiver() }
        let envelopes = try group.send(3)
        // The server rewrites the iteration of a real message to a huge value.
        let injected = try GroupEnvelope(
            senderDevice: envelopes[0].senderDevice, keyID: envelopes[0].keyID, iteration: 4_000_000_000, nonce: envelopes[0].nonce,
            ciphertext: envelopes[0].ciphertext, signature: envelopes[0].signature
        )
        for receiver in receivers {
            let before = receiver.serialized()
            #expect(throws: ProtocolError.badSignature) { try receiver.decrypt(injected, channel: group.channel, now: group.now) }
            #expect(receiver.serialized() == before)
        }
        // Even a validly signed huge jump (a hostile sender) is refused without moving state.
        let hostile = SenderKeySendingState(
            channel: group.channel, keyID: group.sender.keyID, iteration: 4_000_000_000,
            chainKey: SecretBytes.random(count: 32), signingKey: group.sender.signingKey
        )
        let (signedHuge, _) = try hostile.encrypt(Array("x".utf8), senderDevice: group.senderDevice)
        for receiver in receivers {
            let before = receiver.serialized()
            #expect(throws: ProtocolError.tooFarAhead(jump: 4_000_000_000, limit: 2000)) {
                try receiver.decrypt(signedHuge, channel: group.channel, now: group.now)
            }
            #expect(receiver.serialized() == before)
        }
        for index in receivers.indices {
            for (iteration, envelope) in envelopes.enumerated() {
                let (plaintext, next) = try receivers[index].decrypt(envelope, channel: group.channel, now: group.now)
                #expect(plaintext.text == "message \(iteration)")
                receivers[index] = next
            }
        }
    }

    @Test("T10: a message replayed into another channel is refused; into the same channel its position is used")
    func replayAcrossChannels() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelope = try group.send(1)[0]
        let other = randomUUID()
        let before = receiver.serialized()
        #expect(throws: ProtocolError.channelMismatch) { try receiver.decrypt(envelope, channel: other, now: group.now) }
        #expect(receiver.serialized() == before)
        // The channel is bound by signature and AAD: verifying under another channel fails.
        #expect(throws: ProtocolError.badSignature) {
            try envelope.verifySignature(channel: other, signingKey: group.sender.signingPublicKey)
        }
        receiver = try receiver.decrypt(envelope, channel: group.channel, now: group.now).state
        #expect(throws: ProtocolError.positionReused) { try receiver.decrypt(envelope, channel: group.channel, now: group.now) }
        #expect(envelope.identity(channel: group.channel) != envelope.identity(channel: other))
    }

    @Test("T16: an envelope naming another device or key id is refused before any work")
    func senderAndKeyMismatch() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let envelope = try group.send(1)[0]
        let otherDevice = try GroupEnvelope(senderDevice: randomUUID(), keyID: envelope.keyID, iteration: 0, nonce: envelope.nonce, ciphertext: envelope.ciphertext, signature: envelope.signature)
        let otherKey = try GroupEnvelope(senderDevice: envelope.senderDevice, keyID: envelope.keyID &+ 1, iteration: 0, nonce: envelope.nonce, ciphertext: envelope.ciphertext, signature: envelope.signature)
        #expect(throws: ProtocolError.senderMismatch) { try receiver.decrypt(otherDevice, channel: group.channel, now: group.now) }
        #expect(throws: ProtocolError.unknownSenderKey) { try receiver.decrypt(otherKey, channel: group.channel, now: group.now) }
    }
}
