@testable import E2EECrypto
import Testing

/// Link envelopes (docs/spec/protocol.md §10.22): framing, bounds, and a link plaintext carried
/// over a real Double Ratchet session the way the messaging layer will carry it.
@Suite("Linking: link envelopes")
struct LinkEnvelopeTests {
    let fixtures = LinkTestFixtures()

    @Test("sealed with a real session, the envelope decodes and its recipient opens each kind")
    func realRatchetRoundTrip() throws {
        var alice = try SessionTestDevice(seed: 31)
        var bob = try SessionTestDevice(seed: 32)
        try alice.startSession(with: bob)
        for plaintext in try fixtures.everyKind() {
            var record = try #require(alice.records[bob.deviceID])
            let envelope = try LinkEnvelope.seal(plaintext, senderDevice: alice.deviceID, recipientDevice: bob.deviceID) { device, bytes in
                #expect(device == bob.deviceID)
                let result = try record.encrypt(bytes)
                record = result.record
                return result.message
            }
            alice.records[bob.deviceID] = record
            let bytes = envelope.encoded()
            #expect(Array(bytes[0..<34]) == [0x03, 0x04] + alice.deviceID.bytes + bob.deviceID.bytes)
            let decoded = try LinkEnvelope.decode(bytes)
            #expect(decoded == envelope)
            #expect(throws: ProtocolError.notARecipient) { try decoded.pairwiseMessage(for: alice.deviceID) }
            let pending = try bob.open(decoded.pairwiseMessage(for: bob.deviceID), from: alice)
            #expect(try decoded.open(pairwisePlaintext: pending.plaintext) == plaintext)
            bob.commit(pending.effects, from: alice.deviceID)
        }
    }

    @Test("the largest record fits one chunk, and the largest chunk fits one link envelope even as a prekey message")
    func whenLargestChunkIsSealed_thenItFitsTheEnvelopeBound() throws {
        var alice = try SessionTestDevice(seed: 33)
        let bob = try SessionTestDevice(seed: 34)
        try alice.startSession(with: bob)
        let record = try MessageRecord(channelID: fixtures.channel, messageID: fixtures.request, senderID: fixtures.user, senderDeviceID: fixtures.primary,
                                       createdAt: 1, edited: false, payload: SecretBytes(copying: [UInt8](repeating: 0x61, count: ProtocolLimits.maxPayloadBytes)))
        let largestRecord = TransferRecord.message(record).encoded()
        #expect(largestRecord.count == TransferRecord.headLength + ProtocolLimits.maxTransferRecordBodyBytes)
        #expect(LinkPlaintext.Kind.chunk.plaintextLength + largestRecord.count <= ProtocolLimits.maxLinkChunkPlaintextBytes)
        let padding = ProtocolLimits.maxLinkChunkPlaintextBytes - LinkPlaintext.Kind.chunk.plaintextLength
        let chunk = LinkPlaintext.chunk(transferID: fixtures.transfer, index: 1, records: SecretBytes(copying: [UInt8](repeating: 0, count: padding)))
        let record0 = try #require(alice.records[bob.deviceID])
        let envelope = try LinkEnvelope.seal(chunk, senderDevice: alice.deviceID, recipientDevice: bob.deviceID) { _, bytes in
            try record0.encrypt(bytes).message
        }
        guard case .prekey = try PairwiseMessage(bytes: envelope.pairwiseMessage) else { Issue.record("not a prekey message"); return }
        #expect(envelope.pairwiseMessage.count <= ProtocolLimits.maxLinkPairwiseMessageBytes)
        #expect(try LinkEnvelope.decode(envelope.encoded()) == envelope)
    }

    @Test("a DM key entry or SKD plaintext inside a link envelope is refused as the wrong type")
    func otherPlaintextsRefused() throws {
        let envelope = try LinkEnvelope(senderDevice: fixtures.primary, recipientDevice: fixtures.newDevice,
                                        pairwiseMessage: [UInt8](repeating: 1, count: 69))
        for type: UInt8 in [0x01, 0x02] {
            #expect(throws: ProtocolError.wrongEnvelopeType) {
                try envelope.open(pairwisePlaintext: SecretBytes(copying: [type] + [UInt8](repeating: 0, count: 64)))
            }
        }
    }

    @Test("the DM path still refuses a link plaintext as the wrong envelope type")
    func dmPathRefusesLinkPlaintext() throws {
        let bytes = try LinkPlaintext.ack(transferID: fixtures.transfer, nextIndex: 0).encoded()
        #expect(throws: ProtocolError.wrongEnvelopeType) { try PairwisePlaintext.decode(bytes) }
    }

    @Test("70,000 message bytes are accepted; 70,001 are refused before copying; under 69 are truncated")
    func messageBounds() throws {
        let head: [UInt8] = [0x03, 0x04] + fixtures.primary.bytes + fixtures.newDevice.bytes
        #expect(try LinkEnvelope.decode(head + [UInt8](repeating: 1, count: 70_000)).pairwiseMessage.count == 70_000)
        #expect(throws: ProtocolError.limitExceeded(.linkEnvelope, limit: 70_000, actual: 70_001)) {
            try LinkEnvelope.decode(head + [UInt8](repeating: 1, count: 70_001))
        }
        #expect(throws: ProtocolError.truncated(.linkEnvelope, expected: 34 + 69, actual: 34 + 68)) {
            try LinkEnvelope.decode(head + [UInt8](repeating: 1, count: 68))
        }
        #expect(throws: ProtocolError.truncated(.linkEnvelope, expected: 18, actual: 10)) { try LinkEnvelope.decode(Array(head[0..<10])) }
    }

    @Test("other format or type bytes, and an envelope addressed to its sender, are refused")
    func framing() throws {
        let body = fixtures.primary.bytes + fixtures.newDevice.bytes + [UInt8](repeating: 1, count: 69)
        #expect(throws: ProtocolError.unsupportedVersion(.linkEnvelope, value: 0x01)) { try LinkEnvelope.decode([0x03, 0x01] + body) }
        #expect(throws: ProtocolError.unsupportedVersion(.linkEnvelope, value: 0x02)) { try LinkEnvelope.decode([0x02, 0x04] + body) }
        #expect(throws: ProtocolError.invalidRecipients(reason: "a link envelope addressed to its sender")) {
            try LinkEnvelope.decode([0x03, 0x04] + fixtures.primary.bytes + fixtures.primary.bytes + [UInt8](repeating: 1, count: 69))
        }
        // The generic envelope decoder does not read type 0x04.
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0x04)) { try Envelope.decode([0x03, 0x04] + body) }
    }
}
